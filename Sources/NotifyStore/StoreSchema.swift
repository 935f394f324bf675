/// The store's tables, as every release left them: one migration per schema version.
enum StoreSchema {
  /// The schema, one migration per version; `PRAGMA user_version` says how many have run.
  static let migrations: [String] = [
    // 1: a JSON document per notice, beside the columns history was filtered by.
    """
    CREATE TABLE notices (
      id INTEGER PRIMARY KEY,
      finished INTEGER NOT NULL DEFAULT 0,
      finished_at REAL,
      app TEXT,
      outcome TEXT,
      data TEXT NOT NULL
    );
    CREATE INDEX notices_history ON notices (finished, finished_at);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    // 2: a column per field; history is kept by the engine, so no index beside the key.
    """
    CREATE TABLE notices_v2 (
      id INTEGER PRIMARY KEY,
      kind TEXT NOT NULL, title TEXT NOT NULL, body TEXT, app TEXT, urgency TEXT NOT NULL,
      style TEXT NOT NULL, icon TEXT, tag TEXT, key TEXT, value INTEGER,
      delay REAL NOT NULL, fade_in REAL NOT NULL, hold REAL NOT NULL, fade_out REAL NOT NULL,
      ease_in TEXT NOT NULL, ease_out TEXT NOT NULL, timeout REAL, after INTEGER, actions TEXT,
      invoked TEXT, outcome TEXT, message TEXT, created REAL NOT NULL, shown REAL, finished_at REAL
    );
    INSERT INTO notices_v2 SELECT
      id, json_extract(data, '$.kind'), json_extract(data, '$.title'), json_extract(data, '$.body'),
      json_extract(data, '$.app'), json_extract(data, '$.urgency'), json_extract(data, '$.style'),
      json_extract(data, '$.icon'), json_extract(data, '$.tag'), json_extract(data, '$.key'),
      json_extract(data, '$.value'), json_extract(data, '$.delay'), json_extract(data, '$.fadeIn'),
      json_extract(data, '$.hold'), json_extract(data, '$.fadeOut'), json_extract(data, '$.easeIn'),
      json_extract(data, '$.easeOut'), json_extract(data, '$.timeout'), json_extract(data, '$.after'),
      json_extract(data, '$.actions'), json_extract(data, '$.invoked'),
      CASE WHEN finished = 1 THEN json_extract(data, '$.outcome') END, json_extract(data, '$.message'),
      json_extract(data, '$.created'), json_extract(data, '$.shown'),
      CASE WHEN finished = 1 THEN json_extract(data, '$.finished') END
    FROM notices;
    DROP TABLE notices;
    ALTER TABLE notices_v2 RENAME TO notices;
    """,
    // 3: the freedesktop hints (category, desktop entry, transient, resident, sound), as JSON.
    """
    ALTER TABLE notices ADD COLUMN hints TEXT;
    """,
    // 4: duplicates merged into a notice, and the summary a folded notice went into.
    """
    ALTER TABLE notices ADD COLUMN count INTEGER;
    ALTER TABLE notices ADD COLUMN folded_into INTEGER;
    """,
    // 5: the relay (DESIGN §10): a relayed notice's origin; the store's identity, which makes its
    // notices' message ids unique across hosts; the notices waiting to be published, in order; and
    // per origin store the highest origin id committed here, so that a redelivery is a duplicate.
    """
    ALTER TABLE notices ADD COLUMN origin TEXT;
    CREATE TABLE relay_outbox (
      id INTEGER PRIMARY KEY, subject TEXT NOT NULL, message_id TEXT NOT NULL, payload TEXT NOT NULL
    );
    CREATE TABLE relay_marks (origin TEXT PRIMARY KEY, last INTEGER NOT NULL);
    INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(8))));
    """,
    // 6: the relay publishes a window at a time: per origin store, the ids below the highest that
    // have not come yet (`RelayMark`).
    """
    ALTER TABLE relay_marks ADD COLUMN missing TEXT NOT NULL DEFAULT '';
    """,
    // 7: a reply field's placeholder, and the reply a notice got (issue 32).
    """
    ALTER TABLE notices ADD COLUMN reply TEXT;
    ALTER TABLE notices ADD COLUMN replied TEXT;
    """,
    // 8: whether a finished notice went unread, and the notice a restored one came from (issue 33).
    """
    ALTER TABLE notices ADD COLUMN unread INTEGER;
    ALTER TABLE notices ADD COLUMN restored_from INTEGER;
    """,
    // 9: the order notices finished in, which history keeps across a restart: the wall clock can
    // go back, and a notice finished then is not older than the ones before it. Rows already
    // finished take the order of their times.
    """
    ALTER TABLE notices ADD COLUMN finished_order INTEGER;
    UPDATE notices SET finished_order = ranked.position
      FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY finished_at, id) AS position
            FROM notices WHERE outcome IS NOT NULL) AS ranked
      WHERE notices.id = ranked.id;
    """,
    // 10: when a snoozed notice comes back (wall clock; issue 55).
    """
    ALTER TABLE notices ADD COLUMN snoozed_until REAL;
    """,
  ]

  /// Runs the migrations `database` has not run yet, in one transaction.
  static func migrate(_ database: SQLiteDatabase) throws(SQLiteError) {
    let version = try database.prepare("PRAGMA user_version")
    let current = try version.step() ? version.integer(0) : 0
    version.reset()
    guard current < migrations.count else { return }
    try database.execute("BEGIN IMMEDIATE")
    do {
      for index in current..<migrations.count { try database.execute(migrations[index]) }
      try database.execute("PRAGMA user_version=\(migrations.count)")
      try database.execute("COMMIT")
    } catch {
      try? database.execute("ROLLBACK")
      throw error
    }
  }
}
