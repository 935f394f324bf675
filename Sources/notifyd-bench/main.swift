// notifyd-bench: the figures of DESIGN §8 beside their budgets and a peer measured in the same run.
// `make bench` runs it inside bench/with-peer.sh, which starts dunst on a private bus under Xvfb.
BenchCommand.main()
