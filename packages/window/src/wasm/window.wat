;; The window filter's lookups and test-and-adds for a batch of keys already hashed (the age-partitioned ring of
;; packages/window: k + l slices of s bits, a key's bit in slice j at j*s + floor(p(j) * scale), p(j) = h1 + h2*j +
;; h3*j^2 + h4*j^3 (mod 2^32) for the slice's physical index j: FORMAT.md section 5 with k + l positions of range s),
;; as WindowBloomFilter's JavaScript loops answer them, bit for bit (test/window-instance.spec.ts against the
;; definition; test/window-kernel.spec.ts against those loops), over bits that live in this module's memory. The
;; memory is imported (@bloomkit/core's src/wasm/kernel-memory.ts lays it out; filters may share it):
;;   [0, 16384)        the hashes: key j's h1..h4 at 16*j, j < n <= 1024;
;;   [16384, 17408)    the answers: one byte per key;
;;   [bits, ...)       the ring's bits from the offset `bits` (at least 65536), slice j at bits
;;                     [j*s, (j + 1)*s), bit i is bit i & 7 of byte bits + (i >>> 3).
;;
;; The slice of age a (0 the newest) is physical slice (newest + a) mod (k + l). A key is present when k slices of
;; consecutive ages all hold its bit: every such run crosses one of the ages k - 1, 2k - 1, ..., so those are read
;; first, then their neighbours while the run lasts (about (k + l)/k + 2 reads for an absent key). Measured on 10^6
;; URL keys (k = 8, l = 16, 2.6 MB of bits), in batches of 4,096, interleaved with the JavaScript loops: adds 24%
;; faster, lookups the same. Two shapes measured slower: reading every slice's bit with no branch on what a load
;; returns (24 lines a key: lookups 12% slower), and reading the batch's anchors first (lookups 15% slower).
;;
;; probe(n, scale, s, slices, k, newest): answers[j] = 1 when key j is present, else 0; returns how many 1s.
;; mark(n, scale, s, slices, k, newest, room): the test-and-add of each key in order: sets its bit in the k newest
;; slices (reading the old bits first, with no branch on them); answers[j] = 0 when those k bits were all set already
;; (the key is not counted in the generation), 1 when the key was absent before (it was new), 2 when it was present;
;; stops after the key that makes `room` counted keys (the generation is then full and the caller shifts the ring).
;; Returns how many keys it took.
(module
  (import "filter" "memory" (memory 2))
  ;; The memory map above, exported for the loader (core's kernel-memory.ts), which refuses a module whose map is not
  ;; its own: where the hashes and the answers start, how many keys they hold, and where filters' bits may start.
  (global (export "hashesAt") i32 (i32.const 0))
  (global (export "answersAt") i32 (i32.const 16384))
  (global (export "keysMax") i32 (i32.const 1024))
  (global (export "scratchBytes") i32 (i32.const 65536))
  ;; Where the bits of the filter at hand start in the memory (core's kernel-arena.ts places them, 64-byte aligned, at or
  ;; past 65536): filters sharing a memory share an instance, and the caller sets this before each call.
  (global $bits (export "bits") (mut i32) (i32.const 65536))
  ;; Scratch of the key being looked at: its h1..h4 and the ring's shape.
  (global $h1 (mut i32) (i32.const 0))
  (global $h2 (mut i32) (i32.const 0))
  (global $h3 (mut i32) (i32.const 0))
  (global $h4 (mut i32) (i32.const 0))
  ;; The key's position in physical slice $j: j*s + floor(p(j) * scale), p(j) by Horner's rule (the ring reads slices
  ;; in no fixed order). The one copy of the window's slot formula in this module; the build inlines it into $bitAt
  ;; and mark (a call per position made batch adds about 10% slower: Node 20 does not inline WebAssembly calls).
  (func $inline.slot (param $j i32) (param $scale f64) (param $s i32) (result i32)
    (i32.add (i32.mul (local.get $j) (local.get $s))
      (i32.trunc_f64_u
        (f64.floor
          (f64.mul
            (f64.convert_i32_u
              (i32.add (global.get $h1)
                (i32.mul (local.get $j)
                  (i32.add (global.get $h2)
                    (i32.mul (local.get $j) (i32.add (global.get $h3) (i32.mul (local.get $j) (global.get $h4))))))))
            (local.get $scale))))))
  ;; The key's bit in the slice of age $age: 1 or 0; below $known, bit $age of $before instead of a load.
  (func $bitAt (param $age i32) (param $before i32) (param $known i32) (param $scale f64) (param $s i32)
    (param $slices i32) (param $newest i32) (result i32)
    (local $j i32) (local $position i32)
    (local $bitsAt i32)
    (local.set $bitsAt (global.get $bits))
    (if (i32.lt_u (local.get $age) (local.get $known))
      (then (return (i32.and (i32.shr_u (local.get $before) (local.get $age)) (i32.const 1)))))
    (local.set $j (i32.add (local.get $newest) (local.get $age)))
    (if (i32.ge_u (local.get $j) (local.get $slices))
      (then (local.set $j (i32.sub (local.get $j) (local.get $slices)))))
    (local.set $position (call $inline.slot (local.get $j) (local.get $scale) (local.get $s)))
    (i32.and
      (i32.shr_u (i32.load8_u (i32.add (local.get $bitsAt) (i32.shr_u (local.get $position) (i32.const 3))))
        (i32.and (local.get $position) (i32.const 7)))
      (i32.const 1)))
  ;; 1 when k slices of consecutive ages hold the key's bit. Every run of k crosses one of the ages k - 1, 2k - 1,
  ;; ..., so those are read first, then their neighbours while the run lasts.
  (func $find (param $before i32) (param $known i32) (param $scale f64) (param $s i32) (param $slices i32)
    (param $k i32) (param $newest i32) (result i32)
    (local $anchor i32) (local $age i32) (local $run i32)
    (local.set $anchor (i32.sub (local.get $k) (i32.const 1)))
    (block $absent
      (loop $anchors
        (br_if $absent (i32.ge_u (local.get $anchor) (local.get $slices)))
        (if (call $bitAt (local.get $anchor) (local.get $before) (local.get $known) (local.get $scale) (local.get $s)
              (local.get $slices) (local.get $newest))
          (then
            (local.set $run (i32.const 1))
            ;; Down from the anchor, while the run lasts and could still reach k.
            (local.set $age (local.get $anchor))
            (block $downDone
              (loop $down
                (br_if $downDone (i32.eqz (local.get $age)))
                (local.set $age (i32.sub (local.get $age) (i32.const 1)))
                (br_if $downDone (i32.le_s (local.get $age) (i32.sub (local.get $anchor) (local.get $k))))
                (br_if $downDone
                  (i32.eqz (call $bitAt (local.get $age) (local.get $before) (local.get $known) (local.get $scale)
                    (local.get $s) (local.get $slices) (local.get $newest))))
                (local.set $run (i32.add (local.get $run) (i32.const 1)))
                (br $down)))
            ;; Then up.
            (local.set $age (local.get $anchor))
            (block $upDone
              (loop $up
                (br_if $upDone (i32.ge_u (local.get $run) (local.get $k)))
                (local.set $age (i32.add (local.get $age) (i32.const 1)))
                (br_if $upDone (i32.ge_u (local.get $age) (local.get $slices)))
                (br_if $upDone
                  (i32.eqz (call $bitAt (local.get $age) (local.get $before) (local.get $known) (local.get $scale)
                    (local.get $s) (local.get $slices) (local.get $newest))))
                (local.set $run (i32.add (local.get $run) (i32.const 1)))
                (br $up)))
            (if (i32.ge_u (local.get $run) (local.get $k)) (then (return (i32.const 1))))))
        (local.set $anchor (i32.add (local.get $anchor) (local.get $k)))
        (br $anchors)))
    (i32.const 0))
  ;; Takes the hash of key j into the globals.
  (func $take (param $j i32)
    (local $h i32)
    (local.set $h (i32.shl (local.get $j) (i32.const 4)))
    (global.set $h1 (i32.load (local.get $h)))
    (global.set $h2 (i32.load offset=4 (local.get $h)))
    (global.set $h3 (i32.load offset=8 (local.get $h)))
    (global.set $h4 (i32.load offset=12 (local.get $h))))
  (func (export "probe") (param $n i32) (param $scale f64) (param $s i32) (param $slices i32) (param $k i32)
    (param $newest i32) (result i32)
    (local $j i32) (local $yes i32) (local $present i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (call $take (local.get $j))
        (local.set $present
          (call $find (i32.const 0) (i32.const 0) (local.get $scale) (local.get $s) (local.get $slices) (local.get $k)
            (local.get $newest)))
        (i32.store8 offset=16384 (local.get $j) (local.get $present))
        (local.set $yes (i32.add (local.get $yes) (local.get $present)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $each)))
    (local.get $yes))
  (func (export "mark") (param $n i32) (param $scale f64) (param $s i32) (param $slices i32) (param $k i32)
    (param $newest i32) (param $room i32) (result i32)
    (local $j i32) (local $counted i32) (local $age i32) (local $before i32) (local $all i32) (local $slice i32)
    (local $position i32) (local $at i32) (local $byte i32)
    (local $bitsAt i32)
    (local.set $bitsAt (global.get $bits))
    (local.set $all
      (if (result i32) (i32.eq (local.get $k) (i32.const 32))
        (then (i32.const -1))
        (else (i32.sub (i32.shl (i32.const 1) (local.get $k)) (i32.const 1)))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (call $take (local.get $j))
        ;; The bit in each of the k newest slices: read (into $before), then set; no branch on what was read.
        (local.set $before (i32.const 0))
        (local.set $age (i32.const 0))
        (local.set $slice (local.get $newest))
        (block $setDone
          (loop $set
            (br_if $setDone (i32.ge_u (local.get $age) (local.get $k)))
            (local.set $position (call $inline.slot (local.get $slice) (local.get $scale) (local.get $s)))
            (local.set $at (i32.shr_u (local.get $position) (i32.const 3)))
            (local.set $byte (i32.load8_u (i32.add (local.get $bitsAt) (local.get $at))))
            (local.set $before
              (i32.or (local.get $before)
                (i32.shl
                  (i32.and (i32.shr_u (local.get $byte) (i32.and (local.get $position) (i32.const 7))) (i32.const 1))
                  (local.get $age))))
            (i32.store8 (i32.add (local.get $bitsAt) (local.get $at))
              (i32.or (local.get $byte) (i32.shl (i32.const 1) (i32.and (local.get $position) (i32.const 7)))))
            (local.set $age (i32.add (local.get $age) (i32.const 1)))
            (local.set $slice (i32.add (local.get $slice) (i32.const 1)))
            (if (i32.eq (local.get $slice) (local.get $slices)) (then (local.set $slice (i32.const 0))))
            (br $set)))
        (if (i32.eq (local.get $before) (local.get $all))
          (then (i32.store8 offset=16384 (local.get $j) (i32.const 0)))
          (else
            (i32.store8 offset=16384 (local.get $j)
              (i32.add (i32.const 1)
                (call $find (local.get $before) (local.get $k) (local.get $scale) (local.get $s) (local.get $slices)
                  (local.get $k) (local.get $newest))))
            (local.set $counted (i32.add (local.get $counted) (i32.const 1)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $done (i32.ge_u (local.get $counted) (local.get $room)))
        (br $each)))
    (local.get $j)))
