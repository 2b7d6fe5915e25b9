# Five sync readers that are copies of each other (seed 002's fio jobs, all
# from offset 0, scaled down): bench/reduce.py's symmetry rows. Every
# scheduler that renames processes finds them interchangeable.
device depth=2 slot=1 spindles=1 rotational=1 service=2 seek=8
proc job0 dir=R sync=1 reqs=0,1,2
proc job1 dir=R sync=1 reqs=0,1,2
proc job2 dir=R sync=1 reqs=0,1,2
proc job3 dir=R sync=1 reqs=0,1,2
proc job4 dir=R sync=1 reqs=0,1,2
