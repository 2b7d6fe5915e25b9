/*
 * tags.pml -- Promela model of blk-mq driver tags and busy-tag iteration.
 *
 * This is the SPIN twin of blkmc's "tags" model: the stored state count that
 * pan reports must equal blkmc's state count for the same configuration, so
 * the model is written so that ONE Promela transition == ONE model step and
 * the SPIN state vector is in bijection with blkmc's state:
 *
 *   - every model step is a single d_step (a nondeterministic step is one
 *     `do` option per choice, each option a d_step starting with its guard);
 *   - all state lives in globals with an explicit program counter per
 *     submitter, so each process sits at one control location (the loop head)
 *     while it is running: no loop-guard / intermediate / dead-variable states;
 *   - scratch variables used inside d_steps are `hidden` (not in the vector);
 *   - the step that finishes a process jumps (break, merged by SPIN into the
 *     d_step's transition) to a parking location labelled end_*.  That
 *     location is reachable only once the process is finished, so "at end_*"
 *     means exactly "terminated".  We do not let processes run off their
 *     closing brace: SPIN would then delete the highest-numbered terminated
 *     process, adding states that blkmc does not have.  Nothing else is an
 *     end state, so any other blocked state is reported as an invalid end
 *     state (= blkmc's deadlock).
 *
 * Parameters (cpp macros, e.g. spin -a -DNTAGS=4 -DSUBMITTERS=3 ...):
 *   NTAGS 1..16, SUBMITTERS 1..8, ROUNDS 1..15, POOL 0..8,
 *   VARIANT one of V4_11, NULL_CHECK, REFCOUNT, TAG_MATCH.
 *   -DFN_SEES_OWNER additionally asserts the property fn-sees-owner
 *   (fn never runs on a request that does not own the tag), and
 *   -DCOUNT_OWNER_ONLY the property count-owner-only (fn never counts an
 *   in-flight request through a tag it does not own).
 *
 * To get blkmc's state count:
 *   spin -a -o2 -DNTAGS=4 -DSUBMITTERS=3 -DROUNDS=2 -DPOOL=0 \
 *        -DVARIANT=REFCOUNT tags.pml
 *   gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -m1000
 * -o2 keeps write-only variables (count) in the state vector, -DNOREDUCE
 * turns off partial-order reduction; without either, pan stores fewer states
 * than the model has.  pan's invalid-end-state check is blkmc's deadlock
 * property (pass -E to pan to skip it).
 */

#ifndef NTAGS
#define NTAGS 1
#endif
#ifndef SUBMITTERS
#define SUBMITTERS 1
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif
#ifndef POOL
#define POOL 0
#endif

/* variants of bt_iter() */
#define V4_11      1	/* rq = tags->rqs[bitnr]; fn(rq): NULL deref possible  */
#define NULL_CHECK 2	/* if (rq) fn(rq)                                       */
#define REFCOUNT   3	/* if (rq && refcount_inc_not_zero(&rq->ref)) fn(rq)    */
#define TAG_MATCH  4	/* blk_mq_find_and_get_req(): also rq->tag == bitnr     */
#ifndef VARIANT
#define VARIANT REFCOUNT
#endif

/* submitter program counter */
#define GET      0	/* blk_mq_get_request(): take a pool object (POOL >= 1) */
#define ALLOC    1	/* blk_mq_get_tag(): sbitmap_get() a free driver tag    */
#define ASSIGN   2	/* publish it: tags->rqs[tag] = rq                      */
#define START    3	/* blk_mq_start_request(): request now in flight        */
#define COMPLETE 4	/* blk_mq_complete_request(): no longer in flight       */
#define FREE     5	/* blk_mq_free_request() -> blk_mq_put_tag()            */
#define DONE     6	/* all ROUNDS requests submitted and freed              */

/* iterator flags */
#define OOPS      1	/* NULL pointer dereference in bt_iter (v4.11)          */
#define NOT_OWNER 2	/* fn(rq) ran on a request that does not own the tag    */
#define STALE_COUNT 4	/* fn(rq) counted an in-flight rq through a stale slot  */

#define NONE 255	/* "no submitter" */

/* ---- global state ------------------------------------------------------ */

unsigned bits : NTAGS;		/* sbitmap: bit t set = driver tag t allocated */
byte owner[NTAGS];		/* ghost: id of the request holding tag t, 0 = none */
byte rqs[NTAGS];		/* tags->rqs[t]: published request id, 0 = NULL;
				   never cleared on free */

#if POOL >= 1
#define INIT_PC GET
#else
#define INIT_PC ALLOC
#endif
byte pc[SUBMITTERS] = INIT_PC;	/* per submitter: program counter */
byte round[SUBMITTERS];		/* requests completed so far, 0..ROUNDS */
byte tag[SUBMITTERS];		/* driver tag held (0 when none) */
#if POOL >= 1
byte obj[SUBMITTERS];		/* pool object held (0 when none) */
#endif

byte pos;			/* iterator: next bitnr to visit */
byte count;			/* iterator: in-flight requests fn() counted */
byte flags;			/* iterator: OOPS | NOT_OWNER | STALE_COUNT */

/* scratch for d_steps only: not part of the state vector */
hidden byte rq;			/* request id read from tags->rqs[pos] */
hidden byte h;			/* submitter holding rq alive, or NONE */
hidden byte call;		/* does bt_iter() call fn(rq)? */

#define me _pid			/* submitters are pids 0..SUBMITTERS-1 */

/* id of the request submitter `me` is working on */
#if POOL == 0
#define MY_RQ	(me * ROUNDS + round[me] + 1)	/* fresh request per round */
#else
#define MY_RQ	obj[me]				/* recycled pool object */
#endif

/* ---- submitters -------------------------------------------------------- */

#if POOL >= 1
/* no submitter holds object k (obj[i % SUBMITTERS] just repeats a
   comparison when there are fewer than 8 submitters) */
#define NOT_HELD(k)							\
	(obj[0 % SUBMITTERS] != k && obj[1 % SUBMITTERS] != k &&	\
	 obj[2 % SUBMITTERS] != k && obj[3 % SUBMITTERS] != k &&	\
	 obj[4 % SUBMITTERS] != k && obj[5 % SUBMITTERS] != k &&	\
	 obj[6 % SUBMITTERS] != k && obj[7 % SUBMITTERS] != k)

/* take free pool object k (one option per k nobody holds) */
#define GET_OBJ(k)							\
	:: d_step { pc[me] == GET && NOT_HELD(k) ->			\
			obj[me] = k;					\
			pc[me] = ALLOC }
#endif

/* blk_mq_get_tag(): grab free driver tag t (one option per clear bit) */
#define ALLOC_TAG(t)							\
	:: d_step { pc[me] == ALLOC && (bits & (1 << t)) == 0 ->	\
			bits = bits | (1 << t);				\
			owner[t] = MY_RQ;				\
			tag[me] = t;					\
			pc[me] = ASSIGN }

/* blk_mq_free_request() -> blk_mq_put_tag(): sbitmap_clear(); rqs[] kept */
#if POOL >= 1
#define RELEASE_OBJ	obj[me] = 0
#define NEXT_PC		GET
#else
#define RELEASE_OBJ	skip
#define NEXT_PC		ALLOC
#endif
#define PUT_TAG								\
	bits = bits & ~(1 << tag[me]);					\
	owner[tag[me]] = 0;						\
	tag[me] = 0;							\
	RELEASE_OBJ;							\
	round[me] = round[me] + 1


active [SUBMITTERS] proctype submitter()
{
	do
	/* GET: blk_mq_get_request(), any pool object nobody holds */
#if POOL >= 1
	GET_OBJ(1)
#endif
#if POOL >= 2
	GET_OBJ(2)
#endif
#if POOL >= 3
	GET_OBJ(3)
#endif
#if POOL >= 4
	GET_OBJ(4)
#endif
#if POOL >= 5
	GET_OBJ(5)
#endif
#if POOL >= 6
	GET_OBJ(6)
#endif
#if POOL >= 7
	GET_OBJ(7)
#endif
#if POOL >= 8
	GET_OBJ(8)
#endif
	/* ALLOC: blk_mq_get_tag(), any clear bit; blocks while all are set */
#if NTAGS > 0
	ALLOC_TAG(0)
#endif
#if NTAGS > 1
	ALLOC_TAG(1)
#endif
#if NTAGS > 2
	ALLOC_TAG(2)
#endif
#if NTAGS > 3
	ALLOC_TAG(3)
#endif
#if NTAGS > 4
	ALLOC_TAG(4)
#endif
#if NTAGS > 5
	ALLOC_TAG(5)
#endif
#if NTAGS > 6
	ALLOC_TAG(6)
#endif
#if NTAGS > 7
	ALLOC_TAG(7)
#endif
#if NTAGS > 8
	ALLOC_TAG(8)
#endif
#if NTAGS > 9
	ALLOC_TAG(9)
#endif
#if NTAGS > 10
	ALLOC_TAG(10)
#endif
#if NTAGS > 11
	ALLOC_TAG(11)
#endif
#if NTAGS > 12
	ALLOC_TAG(12)
#endif
#if NTAGS > 13
	ALLOC_TAG(13)
#endif
#if NTAGS > 14
	ALLOC_TAG(14)
#endif
#if NTAGS > 15
	ALLOC_TAG(15)
#endif
	/* ASSIGN: tags->rqs[rq->tag] = rq (blk_mq_get_driver_tag() or
	   blk_mq_rq_ctx_init(), depending on the kernel version) */
	:: d_step { pc[me] == ASSIGN ->
			rqs[tag[me]] = MY_RQ;
			pc[me] = START }
	/* START: blk_mq_start_request() */
	:: d_step { pc[me] == START -> pc[me] = COMPLETE }
	/* COMPLETE: blk_mq_complete_request() */
	:: d_step { pc[me] == COMPLETE -> pc[me] = FREE }
	/* FREE: blk_mq_free_request(), more rounds to go */
	:: d_step { pc[me] == FREE && round[me] + 1 < ROUNDS ->
			PUT_TAG;
			pc[me] = NEXT_PC }
	/* FREE: blk_mq_free_request(), last round: the submitter is done */
	:: d_step { pc[me] == FREE && round[me] + 1 == ROUNDS ->
			PUT_TAG;
			pc[me] = DONE };
		break
	od;
end_done:			/* reached only with pc[me] == DONE */
	false
}

/* ---- iterator: blk_mq_queue_tag_busy_iter() -> bt_for_each() -> bt_iter() */

/* h = submitter holding request rq (!= 0) alive (ref > 0), else NONE */
inline find_holder()
{
#if POOL == 0
	/* request id s*ROUNDS + r + 1 holds a reference after submitter s's
	   ASSIGN step of round r and until its FREE step (pc START..FREE) */
	h = (rq - 1) / ROUNDS;
	if
	:: round[h] == (rq - 1) % ROUNDS &&
	   (pc[h] == START || pc[h] == COMPLETE || pc[h] == FREE) -> skip
	:: else -> h = NONE
	fi
#else
	/* pool object k holds a reference after its holder's GET step and
	   until its FREE step (pc ALLOC..FREE) */
	h = 0;
	do
	:: h < SUBMITTERS && obj[h] == rq && pc[h] >= ALLOC && pc[h] <= FREE ->
		break
	:: h < SUBMITTERS && !(obj[h] == rq && pc[h] >= ALLOC && pc[h] <= FREE) ->
		h++
	:: h == SUBMITTERS -> h = NONE; break
	od
#endif
}

/* fn(rq, bitnr), e.g. blk_mq_check_inflight(): count in-flight requests */
inline fn()
{
	if
	:: rq != owner[pos] -> flags = flags | NOT_OWNER
	:: else
	fi;
	find_holder();
	if
	:: h != NONE && pc[h] == COMPLETE ->
		count++;
		if	/* 67f3b2f822b7: the same in-flight rq counted twice */
		:: rq != owner[pos] -> flags = flags | STALE_COUNT
		:: else
		fi
	:: else
	fi
#ifdef FN_SEES_OWNER
	; assert(!(flags & NOT_OWNER))
#endif
#ifdef COUNT_OWNER_ONLY
	; assert(!(flags & STALE_COUNT))
#endif
}

/* bt_iter(): one step visits bitnr = pos */
inline bt_iter()
{
	call = 0;
	if
	:: (bits & (1 << pos)) != 0 ->
		rq = rqs[pos];
#if VARIANT == V4_11
		if
		:: rq == 0 -> flags = flags | OOPS	/* rq->q: NULL deref */
		:: else -> call = 1
		fi
#elif VARIANT == NULL_CHECK
		call = (rq != 0)
#elif VARIANT == REFCOUNT || VARIANT == TAG_MATCH
		if
		:: rq != 0 ->
			find_holder();	/* refcount_inc_not_zero(&rq->ref) */
#if VARIANT == REFCOUNT
			call = (h != NONE)
#else
			/* rq->tag == bitnr; rq->tag is BLK_MQ_NO_TAG (-1)
			   until the holder's blk_mq_get_tag() (pc ALLOC) */
			call = (h != NONE && pc[h] != ALLOC && tag[h] == pos)
#endif
		:: else
		fi
#else
#error "unknown VARIANT"
#endif
	:: else		/* tag not allocated */
	fi;
	if
	:: call -> fn()
	:: else
	fi;
	if
	:: !(flags & OOPS) -> pos++	/* the oopsed iterator stays put */
	:: else
	fi
}

/* the iterator's step is deterministic; this says whether it is the last */
#if VARIANT == V4_11
#define WILL_OOPS	((bits & (1 << pos)) != 0 && rqs[pos] == 0)
#else
#define WILL_OOPS	false
#endif
#define LAST_STEP	(pos + 1 == NTAGS || WILL_OOPS)

active proctype iterator()
{
	do
	:: d_step { pos < NTAGS && !(flags & OOPS) && !LAST_STEP -> bt_iter() }
	:: d_step { pos < NTAGS && !(flags & OOPS) &&  LAST_STEP -> bt_iter() };
		break
	od;
end_done:			/* reached only with pos == NTAGS or OOPS set */
	false
}
