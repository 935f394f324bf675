print("notifyd-bench")
