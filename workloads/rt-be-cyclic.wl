# An RT reader that never stops (sync, cyclic) and one BE write: while an RT
# request is queued or in flight, dd_queued(RT) != 0 and the BE level waits;
# only prio_aging_expire lets the write through.
device depth=2 slot=1 spindles=1
proc rt dir=R sync=1 prio=rt cyclic=1 reqs=0
proc be dir=W sync=0 prio=be reqs=50
track be
