;; The binary fuse filter's build (Graf & Lemire's populate, as fuse-build.ts writes it in JavaScript and the C
;; reference `binary_fuse8_populate` / `binary_fuse16_populate` in FastFilter/xor_singleheader does it): the four steps
;; of one seed's attempt, each the JavaScript step of the same name, bit for bit (test/reference.spec.ts builds every
;; key set both ways against the reference's output). JavaScript keeps the loop over seeds, the seed sequence, the
;; clearing between attempts and the sort that removes duplicate keys; here the 64-bit arithmetic is i64
;; instructions where JavaScript works on 32-bit halves (u64.ts).
;;
;; The memory is this module's own, one per build, grown by the caller to hold its regions (offsets in bytes, each
;; 8-byte aligned; n keys, c = arrayLength slots):
;;   keys    n u64        the caller's 64-bit keys
;;   order   n + 1 u64    mixed hashes in placement order, then in peeling order; entry n is the sentinel 1
;;   xors    c u64        per slot, the XOR of the hashes in it
;;   alone   c u32        the peeling queue of slots holding one hash
;;   start   2^blockBits u32  the placement's next free entry of each bucket
;;   counts  c u8         per slot, 4 x (hashes in it) plus, in its low 2 bits, the XOR of the sides they came by
;;   sides   n u8         per peeled hash, the side (0, 1, 2) of the slot it was peeled from
;;   fingerprints  c u8 or c u16 (little-endian)
;;
;; A hash's slots, with the layout set by `layout`: h0 = floor(hash * segmentCountLength / 2^64),
;; h1 = (h0 + segmentLength) XOR ((hash >> 18) AND segmentLengthMask), h2 = (h0 + 2 segmentLength) XOR (hash AND
;; segmentLengthMask); its fingerprint the low 8 (16) bits of hash XOR (hash >> 32); hash = fmix64(key + seed).
(module
  (memory (export "memory") 1)
  (global $segmentCountLength (mut i64) (i64.const 0))
  (global $segmentLength (mut i32) (i32.const 0))
  (global $segmentLengthMask (mut i32) (i32.const 0))
  ;; The three slots of the last hash given to $inline.slots.
  (global $s0 (mut i32) (i32.const 0))
  (global $s1 (mut i32) (i32.const 0))
  (global $s2 (mut i32) (i32.const 0))

  ;; Sets the layout every later call uses.
  (func (export "layout") (param $segmentCountLength i32) (param $segmentLength i32) (param $segmentLengthMask i32)
    (global.set $segmentCountLength (i64.extend_i32_u (local.get $segmentCountLength)))
    (global.set $segmentLength (local.get $segmentLength))
    (global.set $segmentLengthMask (local.get $segmentLengthMask)))

  ;; fmix64(key + seed), mod 2^64: MurmurHash3's 64-bit finalizer (the reference's binary_fuse_murmur64).
  (func $inline.mix (param $key i64) (param $seed i64) (result i64)
    (local $h i64)
    (local.set $h (i64.add (local.get $key) (local.get $seed)))
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0xff51afd7ed558ccd)))
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0xc4ceb9fe1a85ec53)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))))

  ;; The hash's three slots into $s0, $s1, $s2 (h0: the high 64 bits of hash * segmentCountLength, a u32, from its
  ;; halves' products, each below 2^63).
  (func $inline.slots (param $hash i64)
    (local $h0 i32)
    (local.set $h0
      (i32.wrap_i64
        (i64.shr_u
          (i64.add
            (i64.mul (i64.shr_u (local.get $hash) (i64.const 32)) (global.get $segmentCountLength))
            (i64.shr_u
              (i64.mul (i64.and (local.get $hash) (i64.const 0xffffffff)) (global.get $segmentCountLength))
              (i64.const 32)))
          (i64.const 32))))
    (global.set $s0 (local.get $h0))
    (global.set $s1
      (i32.xor (i32.add (local.get $h0) (global.get $segmentLength))
        (i32.and (i32.wrap_i64 (i64.shr_u (local.get $hash) (i64.const 18))) (global.get $segmentLengthMask))))
    (global.set $s2
      (i32.xor (i32.add (local.get $h0) (i32.shl (global.get $segmentLength) (i32.const 1)))
        (i32.and (i32.wrap_i64 (local.get $hash)) (global.get $segmentLengthMask)))))

  ;; Slot `side` (0, 1, 2) of the last hash given to $inline.slots.
  (func $inline.slotAt (param $side i32) (result i32)
    (select (global.get $s0)
      (select (global.get $s1) (global.get $s2) (i32.eq (local.get $side) (i32.const 1)))
      (i32.eqz (local.get $side))))

  ;; (x + 1) mod 3 for x in 0..2.
  (func $inline.next (param $x i32) (result i32)
    (select (i32.const 0) (i32.add (local.get $x) (i32.const 1)) (i32.eq (local.get $x) (i32.const 2))))

  ;; placeInBuckets: each key's mixed hash into `order`, in the bucket of its top `blockBits` bits, a full bucket
  ;; spilling into the next (`start` holds each bucket's next entry, set by the caller; order's entries 0..size-1
  ;; zero and entry `size` the sentinel 1).
  (func (export "place") (param $size i32) (param $keys i32) (param $order i32) (param $start i32)
    (param $blockBits i32) (param $seedHigh i32) (param $seedLow i32)
    (local $seed i64) (local $i i32) (local $hash i64) (local $bucket i32) (local $mask i32) (local $shift i64)
    (local $at i32) (local $next i32)
    (local.set $seed
      (i64.or (i64.shl (i64.extend_i32_u (local.get $seedHigh)) (i64.const 32))
        (i64.extend_i32_u (local.get $seedLow))))
    (local.set $mask (i32.sub (i32.shl (i32.const 1) (local.get $blockBits)) (i32.const 1)))
    (local.set $shift (i64.extend_i32_u (i32.sub (i32.const 64) (local.get $blockBits))))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $i) (local.get $size)))
        (local.set $hash
          (call $inline.mix
            (i64.load (i32.add (local.get $keys) (i32.shl (local.get $i) (i32.const 3))))
            (local.get $seed)))
        (local.set $bucket (i32.wrap_i64 (i64.shr_u (local.get $hash) (local.get $shift))))
        (loop $spill
          (local.set $at (i32.add (local.get $start) (i32.shl (local.get $bucket) (i32.const 2))))
          (local.set $next (i32.load (local.get $at)))
          (if (i64.ne (i64.load (i32.add (local.get $order) (i32.shl (local.get $next) (i32.const 3)))) (i64.const 0))
            (then
              (local.set $bucket (i32.and (i32.add (local.get $bucket) (i32.const 1)) (local.get $mask)))
              (br $spill))))
        (i64.store (i32.add (local.get $order) (i32.shl (local.get $next) (i32.const 3))) (local.get $hash))
        (i32.store (local.get $at) (i32.add (local.get $next) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $keys))))

  ;; Whether slot $slot holds exactly two hashes whose XOR is 0 (the same hash twice).
  (func $inline.pair (param $counts i32) (param $xors i32) (param $slot i32) (result i32)
    (i32.and
      (i64.eqz (i64.load (i32.add (local.get $xors) (i32.shl (local.get $slot) (i32.const 3)))))
      (i32.eq (i32.load8_u (i32.add (local.get $counts) (local.get $slot))) (i32.const 8))))

  ;; Adds `hash` to slot $slot by side $side (+ 4 to the count, the side XORed in, the hash XORed in); $sign -4 takes
  ;; it back out.
  (func $inline.touch (param $counts i32) (param $xors i32) (param $slot i32) (param $side i32) (param $sign i32)
    (param $hash i64)
    (local $c i32) (local $x i32)
    (local.set $c (i32.add (local.get $counts) (local.get $slot)))
    (i32.store8 (local.get $c)
      (i32.xor (i32.add (i32.load8_u (local.get $c)) (local.get $sign)) (local.get $side)))
    (local.set $x (i32.add (local.get $xors) (i32.shl (local.get $slot) (i32.const 3))))
    (i64.store (local.get $x) (i64.xor (i64.load (local.get $x)) (local.get $hash))))

  ;; countSlots: adds each of the first `size` hashes of `order` to its three slots, taking a duplicate back out
  ;; (a hash that leaves one of its slots with two hashes whose XOR is 0). Returns the duplicates, or -1 when a
  ;; slot's count overflowed (64 hashes or more in one slot).
  (func (export "count") (param $size i32) (param $order i32) (param $counts i32) (param $xors i32) (result i32)
    (local $i i32) (local $hash i64) (local $a i32) (local $b i32) (local $c i32) (local $duplicates i32)
    (local $error i32)
    (block $done
      (loop $hashes
        (br_if $done (i32.ge_u (local.get $i) (local.get $size)))
        (local.set $hash (i64.load (i32.add (local.get $order) (i32.shl (local.get $i) (i32.const 3)))))
        (call $inline.slots (local.get $hash))
        (local.set $a (global.get $s0))
        (local.set $b (global.get $s1))
        (local.set $c (global.get $s2))
        (call $inline.touch (local.get $counts) (local.get $xors) (local.get $a) (i32.const 0) (i32.const 4)
          (local.get $hash))
        (call $inline.touch (local.get $counts) (local.get $xors) (local.get $b) (i32.const 1) (i32.const 4)
          (local.get $hash))
        (call $inline.touch (local.get $counts) (local.get $xors) (local.get $c) (i32.const 2) (i32.const 4)
          (local.get $hash))
        (if
          (i32.and
            (i64.eqz
              (i64.and (i64.load (i32.add (local.get $xors) (i32.shl (local.get $a) (i32.const 3))))
                (i64.and (i64.load (i32.add (local.get $xors) (i32.shl (local.get $b) (i32.const 3))))
                  (i64.load (i32.add (local.get $xors) (i32.shl (local.get $c) (i32.const 3)))))))
            (i32.or (call $inline.pair (local.get $counts) (local.get $xors) (local.get $a))
              (i32.or (call $inline.pair (local.get $counts) (local.get $xors) (local.get $b))
                (call $inline.pair (local.get $counts) (local.get $xors) (local.get $c)))))
          (then
            (local.set $duplicates (i32.add (local.get $duplicates) (i32.const 1)))
            (call $inline.touch (local.get $counts) (local.get $xors) (local.get $a) (i32.const 0) (i32.const -4)
              (local.get $hash))
            (call $inline.touch (local.get $counts) (local.get $xors) (local.get $b) (i32.const 1) (i32.const -4)
              (local.get $hash))
            (call $inline.touch (local.get $counts) (local.get $xors) (local.get $c) (i32.const 2) (i32.const -4)
              (local.get $hash))))
        (if
          (i32.or (i32.lt_u (i32.load8_u (i32.add (local.get $counts) (local.get $a))) (i32.const 4))
            (i32.or (i32.lt_u (i32.load8_u (i32.add (local.get $counts) (local.get $b))) (i32.const 4))
              (i32.lt_u (i32.load8_u (i32.add (local.get $counts) (local.get $c))) (i32.const 4))))
          (then (local.set $error (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $hashes)))
    (select (i32.const -1) (local.get $duplicates) (local.get $error)))

  ;; unpeel: takes the peeled hash out of slot $other (its side $side), queueing the slot when one hash is left.
  ;; Returns the queue's new length.
  (func $inline.unpeel (param $other i32) (param $side i32) (param $hash i64) (param $counts i32) (param $xors i32)
    (param $alone i32) (param $queued i32) (result i32)
    (local $c i32) (local $count i32)
    (i32.store (i32.add (local.get $alone) (i32.shl (local.get $queued) (i32.const 2))) (local.get $other))
    (local.set $c (i32.add (local.get $counts) (local.get $other)))
    (local.set $count (i32.load8_u (local.get $c)))
    (i32.store8 (local.get $c) (i32.xor (i32.sub (local.get $count) (i32.const 4)) (local.get $side)))
    (local.set $c (i32.add (local.get $xors) (i32.shl (local.get $other) (i32.const 3))))
    (i64.store (local.get $c) (i64.xor (i64.load (local.get $c)) (local.get $hash)))
    (i32.add (local.get $queued) (i32.eq (i32.shr_u (local.get $count) (i32.const 2)) (i32.const 2))))

  ;; peel: queues every slot holding one hash, then takes hashes out of such slots, each peeled hash going to
  ;; `order` (its side to `sides`) in peeling order. Returns how many were peeled.
  (func (export "peel") (param $capacity i32) (param $order i32) (param $counts i32) (param $xors i32)
    (param $alone i32) (param $sides i32) (result i32)
    (local $i i32) (local $queued i32) (local $stacked i32) (local $index i32) (local $count i32) (local $hash i64)
    (local $found i32) (local $side i32)
    (block $done
      (loop $slots
        (br_if $done (i32.ge_u (local.get $i) (local.get $capacity)))
        (i32.store (i32.add (local.get $alone) (i32.shl (local.get $queued) (i32.const 2))) (local.get $i))
        (local.set $queued
          (i32.add (local.get $queued)
            (i32.eq (i32.shr_u (i32.load8_u (i32.add (local.get $counts) (local.get $i))) (i32.const 2))
              (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $slots)))
    (block $empty
      (loop $queue
        (br_if $empty (i32.eqz (local.get $queued)))
        (local.set $queued (i32.sub (local.get $queued) (i32.const 1)))
        (local.set $index
          (i32.load (i32.add (local.get $alone) (i32.shl (local.get $queued) (i32.const 2)))))
        (local.set $count (i32.load8_u (i32.add (local.get $counts) (local.get $index))))
        (br_if $queue (i32.ne (i32.shr_u (local.get $count) (i32.const 2)) (i32.const 1)))
        (local.set $hash (i64.load (i32.add (local.get $xors) (i32.shl (local.get $index) (i32.const 3)))))
        (call $inline.slots (local.get $hash))
        (local.set $found (i32.and (local.get $count) (i32.const 3)))
        (i32.store8 (i32.add (local.get $sides) (local.get $stacked)) (local.get $found))
        (i64.store (i32.add (local.get $order) (i32.shl (local.get $stacked) (i32.const 3))) (local.get $hash))
        (local.set $stacked (i32.add (local.get $stacked) (i32.const 1)))
        (local.set $side (call $inline.next (local.get $found)))
        (local.set $queued
          (call $inline.unpeel (call $inline.slotAt (local.get $side)) (local.get $side) (local.get $hash)
            (local.get $counts) (local.get $xors) (local.get $alone) (local.get $queued)))
        (local.set $side (call $inline.next (local.get $side)))
        (local.set $queued
          (call $inline.unpeel (call $inline.slotAt (local.get $side)) (local.get $side) (local.get $hash)
            (local.get $counts) (local.get $xors) (local.get $alone) (local.get $queued)))
        (br $queue)))
    (local.get $stacked))

  ;; The fingerprint in slot $slot of the table at $at: a byte, or ($wide) a little-endian u16.
  (func $inline.fingerprint (param $at i32) (param $slot i32) (param $wide i32) (result i32)
    (if (result i32) (local.get $wide)
      (then (i32.load16_u (i32.add (local.get $at) (i32.shl (local.get $slot) (i32.const 1)))))
      (else (i32.load8_u (i32.add (local.get $at) (local.get $slot))))))

  ;; assign: the fingerprints in reverse peeling order, so that each peeled hash's three slots XOR to its
  ;; fingerprint (the table at `fingerprints` zero before).
  (func (export "assign") (param $size i32) (param $order i32) (param $sides i32) (param $fingerprints i32)
    (param $wide i32)
    (local $i i32) (local $hash i64) (local $found i32) (local $value i32) (local $slot i32) (local $side i32)
    (local.set $i (local.get $size))
    (block $done
      (loop $hashes
        (br_if $done (i32.eqz (local.get $i)))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (local.set $hash (i64.load (i32.add (local.get $order) (i32.shl (local.get $i) (i32.const 3)))))
        (call $inline.slots (local.get $hash))
        (local.set $found (i32.load8_u (i32.add (local.get $sides) (local.get $i))))
        (local.set $value
          (i32.wrap_i64 (i64.xor (local.get $hash) (i64.shr_u (local.get $hash) (i64.const 32)))))
        (local.set $side (call $inline.next (local.get $found)))
        (local.set $value
          (i32.xor (local.get $value)
            (call $inline.fingerprint (local.get $fingerprints) (call $inline.slotAt (local.get $side))
              (local.get $wide))))
        (local.set $side (call $inline.next (local.get $side)))
        (local.set $value
          (i32.xor (local.get $value)
            (call $inline.fingerprint (local.get $fingerprints) (call $inline.slotAt (local.get $side))
              (local.get $wide))))
        (local.set $slot (call $inline.slotAt (local.get $found)))
        (if (local.get $wide)
          (then
            (i32.store16 (i32.add (local.get $fingerprints) (i32.shl (local.get $slot) (i32.const 1)))
              (local.get $value)))
          (else (i32.store8 (i32.add (local.get $fingerprints) (local.get $slot)) (local.get $value))))
        (br $hashes))))
)
