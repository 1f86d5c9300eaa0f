;; The standard and partitioned layouts' probes and marks for a batch of keys already hashed (FORMAT.md section 5,
;; as strideSlots of kernel/slot-loops.ts does over a one-page store, bit for bit:
;; test/wasm/blocked-instance.spec.ts and stride-instance.spec.ts), over bits that live in this module's memory;
;; and the same over the 4-, 8- or 16-bit counters of a counting filter (the counter entries at the end).
;; The memory is imported (laid out by kernel-memory.ts and stride-instance.ts; filters may share it):
;;   [0, 16384)        the hashes: key j's h1..h4 at 16*j, j < n <= 1024;
;;   [16384, 17408)    the answers: one byte per key;
;;   [17408]           where the touch loops leave the OR of the bytes they read (nothing reads it);
;;   [20480, 24576)    probe's live keys: the indices j of the keys not yet answered 0, in order;
;;   [24576, 65536)    the batch's positions: mark's, key j's position i at 24576 + 4*(j*k + i), n*k <= 10240;
;;                     probe's, one round's at 24576 + 4*t for the live key in slot t, then the rest at once;
;;   [bits, ...)       the filter's bits from the offset `bits` (at least 65536), bit i is bit i & 7 of
;;                     byte bits + (i >>> 3) (or its counters: see the end).
;;
;; Key j's k positions are i*stride + floor(p(i) * scale) in binary64, p(i) = h1 + h2*i + h3*i^2 + h4*i^3
;; (mod 2^32, unsigned) by forward differences: scale = range * 2^-32, so each offset is in [0, range); the standard
;; layout has range m and stride 0, the partitioned layout range and stride s = m / k. Every position is below
;; m <= 2^32, an unsigned 32-bit integer.
;;
;; probe(n, scale, stride, k): answers[j] = 1 when all k bits of key j are set, else 0; returns how many 1s.
;; mark(n, scale, stride, k): sets the k bits of each key in order; answers[j] = 1 when one of key j's bits was 0
;; (it was new); returns how many were new. mark first computes every position of the batch, then reads one byte
;; at each, so all the batch's cache misses are in flight together before the keys are taken in order. probe goes
;; in rounds: round i works out position i of every key still live, reads the byte of each, then drops each key
;; whose bit i is clear. An absent key is dropped after about 1 / (1 - fill) rounds (2 at the usual half fill), so
;; its other positions are neither computed nor read; doing all k cost an absent key k misses instead of about two.
;; Once a round drops fewer than half of the live keys, those are most likely present, and their other positions
;; are computed, read and tested at once as mark does (a round per position cost hits 12% more than that); a call
;; after one whose keys were more than three quarters hits does that from the start.
(module
  (import "filter" "memory" (memory 2))
  ;; The memory map above, exported for the loader (core's kernel-memory.ts), which refuses a module whose map is not
  ;; its own: where the hashes and the answers start, how many keys they hold, and where filters' bits may start.
  (global (export "hashesAt") i32 (i32.const 0))
  (global (export "answersAt") i32 (i32.const 16384))
  (global (export "keysMax") i32 (i32.const 1024))
  (global (export "scratchBytes") i32 (i32.const 65536))
  ;; Where the bits of the filter at hand start in the memory (kernel-arena.ts places them, 64-byte aligned, at or
  ;; past 65536): filters sharing a memory share an instance, and the caller sets this before each call.
  (global $bits (export "bits") (mut i32) (i32.const 65536))
  ;; Whether more than three quarters of the last probe's keys were hits (in this memory, whichever filter it was for).
  (global $mostlyHits (mut i32) (i32.const 0))
  ;; Positions from..to-1 (from < to) of the key whose hashes are at $h, stored from `at` on; returns where they end.
  ;; Position q is q*stride + floor(p(q) * scale), p(q) by forward differences from p(0) (those below `from` stepped
  ;; over, not stored). The one copy of the recurrence in this module: the build (scripts/build-wasm.mjs) inlines it
  ;; into mark's positions, probe's rounds and probe's rest, since Node 20 does not inline WebAssembly calls (a call
  ;; per key cost mark 14% and absent keys' probes 39%). Against the three copies it replaced (Horner's rule in the
  ;; rounds), on the kernel alone (10^6 URL keys hashed beforehand, 15 repetitions interleaved): marks and hits the
  ;; same, absent keys' probes 5-10% slower, the steps over the positions before round i's.
  (func $inline.place (param $h i32) (param $from i32) (param $to i32) (param $at i32) (param $scale f64)
    (param $stride i32) (result i32)
    (local $q i32) (local $base i32) (local $p i32) (local $d1 i32) (local $d2 i32) (local $d3 i32) (local $h3 i32)
    (local $h4 i32)
    (local.set $h3 (i32.load offset=8 (local.get $h)))
    (local.set $h4 (i32.load offset=12 (local.get $h)))
    (local.set $p (i32.load (local.get $h)))
    (local.set $d1 (i32.add (i32.load offset=4 (local.get $h)) (i32.add (local.get $h3) (local.get $h4))))
    (local.set $d3 (i32.mul (local.get $h4) (i32.const 6)))
    (local.set $d2 (i32.add (i32.shl (local.get $h3) (i32.const 1)) (local.get $d3)))
    ;; At least one position (from < to): the test at the bottom.
    (loop $each
      (if (i32.ge_u (local.get $q) (local.get $from))
        (then
          (i32.store (local.get $at)
            (i32.add (local.get $base)
              (i32.trunc_f64_u (f64.floor (f64.mul (f64.convert_i32_u (local.get $p)) (local.get $scale))))))
          (local.set $at (i32.add (local.get $at) (i32.const 4)))))
      (local.set $base (i32.add (local.get $base) (local.get $stride)))
      (local.set $p (i32.add (local.get $p) (local.get $d1)))
      (local.set $d1 (i32.add (local.get $d1) (local.get $d2)))
      (local.set $d2 (i32.add (local.get $d2) (local.get $d3)))
      (local.set $q (i32.add (local.get $q) (i32.const 1)))
      (br_if $each (i32.lt_u (local.get $q) (local.get $to))))
    (local.get $at))
  ;; Writes the n*k positions at 24576; returns where they end.
  (func $positions (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (local $h i32) (local $end i32) (local $at i32)
    (local.set $end (i32.shl (local.get $n) (i32.const 4)))
    (local.set $at (i32.const 24576))
    (block $keysDone
      (loop $keys
        (br_if $keysDone (i32.ge_u (local.get $h) (local.get $end)))
        (local.set $at
          (call $inline.place (local.get $h) (i32.const 0) (local.get $k) (local.get $at) (local.get $scale)
            (local.get $stride)))
        (local.set $h (i32.add (local.get $h) (i32.const 16)))
        (br $keys)))
    (local.get $at))
  ;; Reads the byte of each position stored in [at, end) (byte position >> shift: 3 for bits, 1 for 4-bit counters,
  ;; 0 for 8-bit ones): loads alone, so they overlap. One call per batch or round, never per position (Node 20 does
  ;; not inline WebAssembly calls).
  (func $touch (param $at i32) (param $end i32) (param $shift i32)
    (local $sink i32)
    (local $bitsAt i32)
    (local.set $bitsAt (global.get $bits))
    (block $touched
      (loop $each
        (br_if $touched (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $sink
          (i32.or (local.get $sink)
            (i32.load8_u (i32.add (local.get $bitsAt) (i32.shr_u (i32.load (local.get $at)) (local.get $shift))))))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $each)))
    (i32.store8 (i32.const 17408) (local.get $sink)))
  ;; $touch for 16-bit counters: byte position << 1. A loop of its own: one touch taking both shifts slowed bit and
  ;; 4-bit counter batches by about 6% (10^6 URL keys, interleaved, both orders).
  (func $touch16 (param $at i32) (param $end i32)
    (local $sink i32)
    (local $bitsAt i32)
    (local.set $bitsAt (global.get $bits))
    (block $touched
      (loop $each
        (br_if $touched (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $sink
          (i32.or (local.get $sink) (i32.load8_u (i32.add (local.get $bitsAt) (i32.shl (i32.load (local.get $at)) (i32.const 1))))))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $each)))
    (i32.store8 (i32.const 17408) (local.get $sink)))
  (func (export "probe") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (local $j i32) (local $i i32) (local $live i32) (local $t i32) (local $kept i32)
    (local $at i32) (local $last i32) (local $position i32) (local $yes i32)
    (local $bitsAt i32)
    (local.set $bitsAt (global.get $bits))
    ;; Every key live, and answered 1 until a clear bit drops it.
    (block $filled
      (loop $fill
        (br_if $filled (i32.ge_u (local.get $j) (local.get $n)))
        (i32.store offset=20480 (i32.shl (local.get $j) (i32.const 2)) (local.get $j))
        (i32.store8 offset=16384 (local.get $j) (i32.const 1))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $fill)))
    (local.set $live (local.get $n))
    ;; After a call that was mostly hits, start at once (keys of one batch tend to be alike).
    (if (global.get $mostlyHits)
      (then (local.set $kept (local.get $n)))
      (else
        (block $roundsDone
          (loop $rounds
            (br_if $roundsDone (i32.or (i32.ge_u (local.get $i) (local.get $k)) (i32.eqz (local.get $live))))
            ;; Position i of the live key in slot t, to 24576 + 4t.
            (local.set $t (i32.const 0))
            (block $placed
              (loop $round
                (br_if $placed (i32.ge_u (local.get $t) (local.get $live)))
                (drop
                  (call $inline.place
                    (i32.shl (i32.load offset=20480 (i32.shl (local.get $t) (i32.const 2))) (i32.const 4))
                    (local.get $i) (i32.add (local.get $i) (i32.const 1))
                    (i32.add (i32.const 24576) (i32.shl (local.get $t) (i32.const 2)))
                    (local.get $scale) (local.get $stride)))
                (local.set $t (i32.add (local.get $t) (i32.const 1)))
                (br $round)))
            (call $touch (i32.const 24576) (i32.add (i32.const 24576) (i32.shl (local.get $live) (i32.const 2)))
              (i32.const 3))
            ;; Test: keep, in order, the keys whose bit is set; answer 0 for the others.
            (local.set $t (i32.const 0))
            (local.set $kept (i32.const 0))
            (block $tested
              (loop $test
                (br_if $tested (i32.ge_u (local.get $t) (local.get $live)))
                (local.set $j (i32.load offset=20480 (i32.shl (local.get $t) (i32.const 2))))
                (local.set $position (i32.load offset=24576 (i32.shl (local.get $t) (i32.const 2))))
                (if
                  (i32.eqz
                    (i32.and
                      (i32.load8_u (i32.add (local.get $bitsAt) (i32.shr_u (local.get $position) (i32.const 3))))
                      (i32.shl (i32.const 1) (i32.and (local.get $position) (i32.const 7)))))
                  (then (i32.store8 offset=16384 (local.get $j) (i32.const 0)))
                  (else
                    (i32.store offset=20480 (i32.shl (local.get $kept) (i32.const 2)) (local.get $j))
                    (local.set $kept (i32.add (local.get $kept) (i32.const 1)))))
                (local.set $t (i32.add (local.get $t) (i32.const 1)))
                (br $test)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            ;; Fewer than a quarter dropped: most live keys are likely present, so take their other positions at once.
            (br_if $roundsDone
              (i32.gt_u (i32.shl (local.get $kept) (i32.const 2)) (i32.mul (local.get $live) (i32.const 3))))
            (local.set $live (local.get $kept))
            (br $rounds)))))
    (if (i32.and (i32.lt_u (local.get $i) (local.get $k)) (i32.ne (local.get $kept) (i32.const 0)))
      (then
        ;; Positions i..k-1 of the live key in slot t, to 24576 + 4*(t*(k - i) + q - i): fewer than n*k in all.
        (local.set $live (local.get $kept))
        (local.set $at (i32.const 24576))
        (local.set $t (i32.const 0))
        (block $placedAll
          (loop $placeAll
            (br_if $placedAll (i32.ge_u (local.get $t) (local.get $live)))
            (local.set $at
              (call $inline.place
                (i32.shl (i32.load offset=20480 (i32.shl (local.get $t) (i32.const 2))) (i32.const 4))
                (local.get $i) (local.get $k) (local.get $at) (local.get $scale) (local.get $stride)))
            (local.set $t (i32.add (local.get $t) (i32.const 1)))
            (br $placeAll)))
        (call $touch (i32.const 24576) (local.get $at) (i32.const 3))
        ;; Test each live key's bits in order, up to its first clear one.
        (local.set $at (i32.const 24576))
        (local.set $kept (i32.const 0))
        (local.set $t (i32.const 0))
        (block $testedAll
          (loop $testAll
            (br_if $testedAll (i32.ge_u (local.get $t) (local.get $live)))
            (local.set $last (i32.add (local.get $at) (i32.shl (i32.sub (local.get $k) (local.get $i)) (i32.const 2))))
            (local.set $yes (i32.const 1))
            (block $bitsDone
              (loop $bits
                (br_if $bitsDone (i32.ge_u (local.get $at) (local.get $last)))
                (local.set $position (i32.load (local.get $at)))
                (if
                  (i32.eqz
                    (i32.and
                      (i32.load8_u (i32.add (local.get $bitsAt) (i32.shr_u (local.get $position) (i32.const 3))))
                      (i32.shl (i32.const 1) (i32.and (local.get $position) (i32.const 7)))))
                  (then
                    (local.set $yes (i32.const 0))
                    (br $bitsDone)))
                (local.set $at (i32.add (local.get $at) (i32.const 4)))
                (br $bits)))
            (local.set $at (local.get $last))
            (if (i32.eqz (local.get $yes))
              (then (i32.store8 offset=16384 (i32.load offset=20480 (i32.shl (local.get $t) (i32.const 2))) (i32.const 0))))
            (local.set $kept (i32.add (local.get $kept) (local.get $yes)))
            (local.set $t (i32.add (local.get $t) (i32.const 1)))
            (br $testAll)))))
    (global.set $mostlyHits (i32.gt_u (i32.shl (local.get $kept) (i32.const 2)) (i32.mul (local.get $n) (i32.const 3))))
    (local.get $kept))
  (func (export "mark") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (local $j i32) (local $at i32) (local $last i32) (local $position i32) (local $byte i32) (local $old i32)
    (local $mask i32) (local $fresh i32) (local $added i32)
    (local $bitsAt i32)
    (local.set $bitsAt (global.get $bits))
    (call $touch (i32.const 24576)
      (call $positions (local.get $n) (local.get $scale) (local.get $stride) (local.get $k))
      (i32.const 3))
    (local.set $at (i32.const 24576))
    (block $keysDone
      (loop $keys
        (br_if $keysDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $last (i32.add (local.get $at) (i32.shl (local.get $k) (i32.const 2))))
        (local.set $fresh (i32.const 0))
        (block $bitsDone
          (loop $bits
            (br_if $bitsDone (i32.ge_u (local.get $at) (local.get $last)))
            (local.set $position (i32.load (local.get $at)))
            (local.set $byte (i32.shr_u (local.get $position) (i32.const 3)))
            (local.set $mask (i32.shl (i32.const 1) (i32.and (local.get $position) (i32.const 7))))
            (local.set $old (i32.load8_u (i32.add (local.get $bitsAt) (local.get $byte))))
            (i32.store8 (i32.add (local.get $bitsAt) (local.get $byte)) (i32.or (local.get $old) (local.get $mask)))
            (local.set $fresh (i32.or (local.get $fresh) (i32.and (i32.xor (local.get $old) (i32.const -1)) (local.get $mask))))
            (local.set $at (i32.add (local.get $at) (i32.const 4)))
            (br $bits)))
        (local.set $fresh (i32.ne (local.get $fresh) (i32.const 0)))
        (i32.store8 (i32.add (i32.const 16384) (local.get $j)) (local.get $fresh))
        (local.set $added (i32.add (local.get $added) (local.get $fresh)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $added))
  ;; Counters (the counting filter: the standard layout, counter i at each position i), width 4 or 8 ($counters16
  ;; below for 16): 4-bit counter i is nibble i & 1 of byte i >> 1 (low nibble first), 8-bit counter i is byte i,
  ;; 16-bit counter i is bytes 2i and 2i + 1, little-endian (FORMAT.md section 3.3), as counter-array.ts reads them.
  ;; markCounters adds one to each of a key's k counters in order unless it is at its maximum (15, 255 or 65535,
  ;; sticky: counter-array.ts says why), answers[j] = 1 when one of them was 0 before (the key was new), and returns
  ;; how many were; probeCounters sets answers[j] = 1 when all k are non-zero and returns how many were. Both compute
  ;; every position of the batch and read them all first, as mark does.
  (func $counters (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (param $width i32)
    (param $add i32) (result i32)
    (local $j i32) (local $at i32) (local $last i32) (local $position i32) (local $byte i32) (local $old i32)
    (local $shift i32) (local $max i32) (local $value i32) (local $empty i32) (local $total i32) (local $nibbles i32)
    (local $bitsAt i32)
    (local.set $bitsAt (global.get $bits))
    (local.set $nibbles (i32.eq (local.get $width) (i32.const 4)))
    (local.set $max (select (i32.const 15) (i32.const 255) (local.get $nibbles)))
    (call $touch (i32.const 24576)
      (call $positions (local.get $n) (local.get $scale) (local.get $stride) (local.get $k))
      (local.get $nibbles))
    (local.set $at (i32.const 24576))
    (block $keysDone
      (loop $keys
        (br_if $keysDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $last (i32.add (local.get $at) (i32.shl (local.get $k) (i32.const 2))))
        (local.set $empty (i32.const 0))
        (block $countersDone
          (loop $each
            (br_if $countersDone (i32.ge_u (local.get $at) (local.get $last)))
            (local.set $position (i32.load (local.get $at)))
            (local.set $byte (i32.shr_u (local.get $position) (local.get $nibbles)))
            (local.set $shift
              (i32.shl (i32.and (local.get $position) (local.get $nibbles)) (i32.const 2)))
            (local.set $old (i32.load8_u (i32.add (local.get $bitsAt) (local.get $byte))))
            (local.set $value (i32.and (i32.shr_u (local.get $old) (local.get $shift)) (local.get $max)))
            (local.set $empty (i32.or (local.get $empty) (i32.eqz (local.get $value))))
            (if (i32.and (local.get $add) (i32.ne (local.get $value) (local.get $max)))
              (then
                (i32.store8 (i32.add (local.get $bitsAt) (local.get $byte))
                  (i32.add (local.get $old) (i32.shl (i32.const 1) (local.get $shift))))))
            (local.set $at (i32.add (local.get $at) (i32.const 4)))
            (br $each)))
        ;; add: the key was new when a counter was empty; probe: present when none was.
        (local.set $empty (i32.xor (local.get $empty) (i32.eqz (local.get $add))))
        (i32.store8 (i32.add (i32.const 16384) (local.get $j)) (local.get $empty))
        (local.set $total (i32.add (local.get $total) (local.get $empty)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $total))
  ;; $counters for 16-bit counters, the little-endian u16 at byte 2i, as WebAssembly's loads and stores read it. A
  ;; loop of its own: a width test per counter in $counters slowed 4-bit batches by 4-7% (10^6 URL keys, interleaved).
  (func $counters16 (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (param $add i32)
    (result i32)
    (local $j i32) (local $at i32) (local $last i32) (local $byte i32) (local $value i32) (local $empty i32)
    (local $total i32)
    (local $bitsAt i32)
    (local.set $bitsAt (global.get $bits))
    (call $touch16 (i32.const 24576)
      (call $positions (local.get $n) (local.get $scale) (local.get $stride) (local.get $k)))
    (local.set $at (i32.const 24576))
    (block $keysDone
      (loop $keys
        (br_if $keysDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $last (i32.add (local.get $at) (i32.shl (local.get $k) (i32.const 2))))
        (local.set $empty (i32.const 0))
        (block $countersDone
          (loop $each
            (br_if $countersDone (i32.ge_u (local.get $at) (local.get $last)))
            (local.set $byte (i32.shl (i32.load (local.get $at)) (i32.const 1)))
            (local.set $value (i32.load16_u (i32.add (local.get $bitsAt) (local.get $byte))))
            (local.set $empty (i32.or (local.get $empty) (i32.eqz (local.get $value))))
            (if (i32.and (local.get $add) (i32.ne (local.get $value) (i32.const 65535)))
              (then
                (i32.store16 (i32.add (local.get $bitsAt) (local.get $byte)) (i32.add (local.get $value) (i32.const 1)))))
            (local.set $at (i32.add (local.get $at) (i32.const 4)))
            (br $each)))
        (local.set $empty (i32.xor (local.get $empty) (i32.eqz (local.get $add))))
        (i32.store8 (i32.add (i32.const 16384) (local.get $j)) (local.get $empty))
        (local.set $total (i32.add (local.get $total) (local.get $empty)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $total))
  (func (export "markCounters4") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (call $counters (local.get $n) (local.get $scale) (local.get $stride) (local.get $k) (i32.const 4) (i32.const 1)))
  (func (export "probeCounters4") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (call $counters (local.get $n) (local.get $scale) (local.get $stride) (local.get $k) (i32.const 4) (i32.const 0)))
  (func (export "markCounters8") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (call $counters (local.get $n) (local.get $scale) (local.get $stride) (local.get $k) (i32.const 8) (i32.const 1)))
  (func (export "probeCounters8") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (call $counters (local.get $n) (local.get $scale) (local.get $stride) (local.get $k) (i32.const 8) (i32.const 0)))
  (func (export "markCounters16") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (call $counters16 (local.get $n) (local.get $scale) (local.get $stride) (local.get $k) (i32.const 1)))
  (func (export "probeCounters16") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (call $counters16 (local.get $n) (local.get $scale) (local.get $stride) (local.get $k) (i32.const 0)))
)
