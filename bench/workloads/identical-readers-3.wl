# Three sync readers that are copies of each other: bench/reduce.py's
# sym-bfq row. BFQ v6.12 keeps far more per queue than the other schedulers
# (budgets, B-WF2Q+ timestamps, merges, the rq_pos_tree), so five copies do
# not finish on one core; three do.
device depth=2 slot=1 spindles=1 rotational=1 service=2 seek=8
proc job0 dir=R sync=1 reqs=0,1,2
proc job1 dir=R sync=1 reqs=0,1,2
proc job2 dir=R sync=1 reqs=0,1,2
