# An IDLE-class psync reader alone (then a BE reader arrives): 4.13 may idle
# on it (idle_window is set at queue creation even for the idle class);
# patch 1/2 never does.
device depth=1 slot=1 spindles=1 rotational=1 service=1 seek=2
proc idler dir=R sync=1 prio=idle think=1 reqs=0,1,2
proc be dir=R sync=1 think=0 delay=3 reqs=100
track be
