;; MurmurHash3 x86_128 of many keys in one call, four keys at a time in the lanes of 128-bit vectors (WebAssembly
;; SIMD): the same words h1..h4 as murmur3.wat's hashKeys (and murmur3.ts's hashInto) for the same bytes and seed
;; (test/wasm/murmur3-instance.spec.ts holds all three together). It runs on murmur3.wat's memory (imported; the
;; layout is that file's header) and is its hashKeys where the engine has SIMD; murmur3.wat's own hashKeys is the
;; one used where it has not (murmur3-instance.ts).
;;
;; Why: a key's steps are one chain of dependent multiplies and the scalar hash runs at what the processor's
;; multiplier issues (about 170 instructions a 38-byte key, 32 of them multiplies); vectors do each step for four
;; keys at once. Key j's h1 is lane k of vector h1 for the k-th key of its group of four, and its 16-byte blocks are
;; loaded a key at a time and transposed, so that vector k1 holds each key's first word. Keys of a group with fewer
;; blocks than the longest keep their lanes through the extra steps (a select on `active`). Measured on 10^6 URL
;; keys (38 bytes on average), one process: 18.4 ns a key with murmur3.wat's hashKeys, 8.4 here.
;;
;; hashKeys(starts, ends, n, seed, out): hashes the n keys [starts[j], ends[j]), h1..h4 of key j to out + 16·j. A
;; group past the batch's last key repeats the last key (its words stored again, the same).
(module
  (import "hash" "memory" (memory 4))
  ;; ---- MurmurHash3 x86_128's steps on four keys' lanes at once.
  (func $inline.rotl (param $v v128) (param $r i32) (result v128)
    (v128.or (i32x4.shl (local.get $v) (local.get $r))
      (i32x4.shr_u (local.get $v) (i32.sub (i32.const 32) (local.get $r)))))
  ;; A block word's mix: k * c1, rotated left by r, times c2.
  (func $inline.mixWord (param $k v128) (param $c1 i32) (param $r i32) (param $c2 i32) (result v128)
    (i32x4.mul
      (call $inline.rotl (i32x4.mul (local.get $k) (i32x4.splat (local.get $c1))) (local.get $r))
      (i32x4.splat (local.get $c2))))
  ;; Words k1..k4 of a block (or a tail) mixed, each with its constants.
  (func $inline.mix1 (param $k v128) (result v128)
    (call $inline.mixWord (local.get $k) (i32.const 0x239b961b) (i32.const 15) (i32.const 0xab0e9789)))
  (func $inline.mix2 (param $k v128) (result v128)
    (call $inline.mixWord (local.get $k) (i32.const 0xab0e9789) (i32.const 16) (i32.const 0x38b34ae5)))
  (func $inline.mix3 (param $k v128) (result v128)
    (call $inline.mixWord (local.get $k) (i32.const 0x38b34ae5) (i32.const 17) (i32.const 0xa1e38b93)))
  (func $inline.mix4 (param $k v128) (result v128)
    (call $inline.mixWord (local.get $k) (i32.const 0xa1e38b93) (i32.const 18) (i32.const 0x239b961b)))
  ;; a + b + c + d, lane by lane.
  (func $inline.sum (param $a v128) (param $b v128) (param $c v128) (param $d v128) (result v128)
    (i32x4.add (i32x4.add (local.get $a) (local.get $b)) (i32x4.add (local.get $c) (local.get $d))))
  ;; A lane's step over a block: h ^ mixed, rotated left by r, plus the next lane, times 5, plus a constant.
  (func $inline.lane (param $h v128) (param $mixed v128) (param $r i32) (param $next v128) (param $add i32)
    (result v128)
    (local $x v128)
    (local.set $x
      (i32x4.add (call $inline.rotl (v128.xor (local.get $h) (local.get $mixed)) (local.get $r)) (local.get $next)))
    (i32x4.add (i32x4.add (i32x4.shl (local.get $x) (i32.const 2)) (local.get $x)) (i32x4.splat (local.get $add))))
  ;; fmix32 of each lane.
  (func $inline.fmix (param $h v128) (result v128)
    (local.set $h (i32x4.mul (v128.xor (local.get $h) (i32x4.shr_u (local.get $h) (i32.const 16)))
      (i32x4.splat (i32.const 0x85ebca6b))))
    (local.set $h (i32x4.mul (v128.xor (local.get $h) (i32x4.shr_u (local.get $h) (i32.const 13)))
      (i32x4.splat (i32.const 0xc2b2ae35))))
    (v128.xor (local.get $h) (i32x4.shr_u (local.get $h) (i32.const 16))))
  ;; ---- A 4x4 transpose of 32-bit words, in two rounds: words 0, 1 of a and b interleaved (zipLo) and words 2, 3
  ;; (zipHi), then the low halves of two such (lo64) and the high halves (hi64).
  (func $inline.zipLo (param $a v128) (param $b v128) (result v128)
    (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $a) (local.get $b)))
  (func $inline.zipHi (param $a v128) (param $b v128) (result v128)
    (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $a) (local.get $b)))
  (func $inline.lo64 (param $a v128) (param $b v128) (result v128)
    (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $a) (local.get $b)))
  (func $inline.hi64 (param $a v128) (param $b v128) (result v128)
    (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $a) (local.get $b)))
  ;; The 16 bytes from $p with those from byte $tail on zeroed (a key's tail: 0 to 15 bytes; the reference's switch
  ;; leaves the rest zero, and a zero word mixes to zero).
  (func $inline.tail (param $p i32) (param $tail i32) (result v128)
    (v128.and (v128.load (local.get $p))
      (i8x16.gt_u (i8x16.splat (local.get $tail)) (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15))))
  ;; The i32 at $at + 4*$j.
  (func $inline.at (param $at i32) (param $j i32) (result i32)
    (i32.load (i32.add (local.get $at) (i32.shl (local.get $j) (i32.const 2)))))
  (func $inline.min (param $a i32) (param $b i32) (result i32)
    (select (local.get $a) (local.get $b) (i32.lt_u (local.get $a) (local.get $b))))
  (func $inline.max (param $a i32) (param $b i32) (result i32)
    (select (local.get $a) (local.get $b) (i32.gt_u (local.get $a) (local.get $b))))
  ;; Where the group's key of $p, $blocks (its whole blocks) reads block $i: its own, or its first once it has no
  ;; more (a lane kept through that step, read only to stay within the key's bytes).
  (func $inline.blockAt (param $p i32) (param $blocks i32) (param $i i32) (result i32)
    (select (i32.add (local.get $p) (i32.shl (local.get $i) (i32.const 4))) (local.get $p)
      (i32.lt_u (local.get $i) (local.get $blocks))))
  (func (export "hashKeys") (param $starts i32) (param $ends i32) (param $n i32) (param $seed i32) (param $out i32)
    (local $j i32) (local $last i32) (local $j1 i32) (local $j2 i32) (local $j3 i32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32)
    (local $l0 i32) (local $l1 i32) (local $l2 i32) (local $l3 i32)
    (local $n0 i32) (local $n1 i32) (local $n2 i32) (local $n3 i32) (local $most i32) (local $i i32)
    (local $blocks v128) (local $active v128) (local $lengths v128)
    (local $h1 v128) (local $h2 v128) (local $h3 v128) (local $h4 v128)
    (local $k1 v128) (local $k2 v128) (local $k3 v128) (local $k4 v128)
    (local $t0 v128) (local $t1 v128) (local $t2 v128) (local $t3 v128)
    (local $m1 v128) (local $m2 v128) (local $m3 v128) (local $m4 v128)
    (local.set $last (i32.sub (local.get $n) (i32.const 1)))
    (block $keysDone
      (loop $keys
        (br_if $keysDone (i32.ge_s (local.get $j) (local.get $n)))
        ;; The group: keys j .. j + 3 (the last key in place of those past it), where each starts, its length and
        ;; its whole blocks.
        (local.set $j1 (call $inline.min (i32.add (local.get $j) (i32.const 1)) (local.get $last)))
        (local.set $j2 (call $inline.min (i32.add (local.get $j) (i32.const 2)) (local.get $last)))
        (local.set $j3 (call $inline.min (i32.add (local.get $j) (i32.const 3)) (local.get $last)))
        (local.set $p0 (call $inline.at (local.get $starts) (local.get $j)))
        (local.set $p1 (call $inline.at (local.get $starts) (local.get $j1)))
        (local.set $p2 (call $inline.at (local.get $starts) (local.get $j2)))
        (local.set $p3 (call $inline.at (local.get $starts) (local.get $j3)))
        (local.set $l0 (i32.sub (call $inline.at (local.get $ends) (local.get $j)) (local.get $p0)))
        (local.set $l1 (i32.sub (call $inline.at (local.get $ends) (local.get $j1)) (local.get $p1)))
        (local.set $l2 (i32.sub (call $inline.at (local.get $ends) (local.get $j2)) (local.get $p2)))
        (local.set $l3 (i32.sub (call $inline.at (local.get $ends) (local.get $j3)) (local.get $p3)))
        (local.set $n0 (i32.shr_u (local.get $l0) (i32.const 4)))
        (local.set $n1 (i32.shr_u (local.get $l1) (i32.const 4)))
        (local.set $n2 (i32.shr_u (local.get $l2) (i32.const 4)))
        (local.set $n3 (i32.shr_u (local.get $l3) (i32.const 4)))
        (local.set $most (call $inline.max (call $inline.max (local.get $n0) (local.get $n1))
          (call $inline.max (local.get $n2) (local.get $n3))))
        (local.set $blocks (i32x4.replace_lane 3 (i32x4.replace_lane 2 (i32x4.replace_lane 1
          (i32x4.splat (local.get $n0)) (local.get $n1)) (local.get $n2)) (local.get $n3)))
        (local.set $lengths (i32x4.replace_lane 3 (i32x4.replace_lane 2 (i32x4.replace_lane 1
          (i32x4.splat (local.get $l0)) (local.get $l1)) (local.get $l2)) (local.get $l3)))
        (local.set $h1 (i32x4.splat (local.get $seed)))
        (local.set $h2 (local.get $h1))
        (local.set $h3 (local.get $h1))
        (local.set $h4 (local.get $h1))
        ;; The body: block i of each key (16 bytes, words k1..k4), a lane kept where its key has no block i.
        (local.set $i (i32.const 0))
        (block $blocksDone
          (loop $body
            (br_if $blocksDone (i32.ge_u (local.get $i) (local.get $most)))
            (local.set $active (i32x4.gt_s (local.get $blocks) (i32x4.splat (local.get $i))))
            (local.set $k1 (v128.load (call $inline.blockAt (local.get $p0) (local.get $n0) (local.get $i))))
            (local.set $k2 (v128.load (call $inline.blockAt (local.get $p1) (local.get $n1) (local.get $i))))
            (local.set $k3 (v128.load (call $inline.blockAt (local.get $p2) (local.get $n2) (local.get $i))))
            (local.set $k4 (v128.load (call $inline.blockAt (local.get $p3) (local.get $n3) (local.get $i))))
            (local.set $t0 (call $inline.zipLo (local.get $k1) (local.get $k2)))
            (local.set $t1 (call $inline.zipLo (local.get $k3) (local.get $k4)))
            (local.set $t2 (call $inline.zipHi (local.get $k1) (local.get $k2)))
            (local.set $t3 (call $inline.zipHi (local.get $k3) (local.get $k4)))
            (local.set $m1 (call $inline.lane (local.get $h1)
              (call $inline.mix1 (call $inline.lo64 (local.get $t0) (local.get $t1)))
              (i32.const 19) (local.get $h2) (i32.const 0x561ccd1b)))
            (local.set $m2 (call $inline.lane (local.get $h2)
              (call $inline.mix2 (call $inline.hi64 (local.get $t0) (local.get $t1)))
              (i32.const 17) (local.get $h3) (i32.const 0x0bcaa747)))
            (local.set $m3 (call $inline.lane (local.get $h3)
              (call $inline.mix3 (call $inline.lo64 (local.get $t2) (local.get $t3)))
              (i32.const 15) (local.get $h4) (i32.const 0x96cd1c35)))
            (local.set $m4 (call $inline.lane (local.get $h4)
              (call $inline.mix4 (call $inline.hi64 (local.get $t2) (local.get $t3)))
              (i32.const 13) (local.get $m1) (i32.const 0x32ac3b17)))
            (local.set $h1 (v128.bitselect (local.get $m1) (local.get $h1) (local.get $active)))
            (local.set $h2 (v128.bitselect (local.get $m2) (local.get $h2) (local.get $active)))
            (local.set $h3 (v128.bitselect (local.get $m3) (local.get $h3) (local.get $active)))
            (local.set $h4 (v128.bitselect (local.get $m4) (local.get $h4) (local.get $active)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $body)))
        ;; The tails (the bytes after each key's whole blocks), as four words each, mixed into the lanes.
        (local.set $k1 (call $inline.tail (i32.add (local.get $p0) (i32.shl (local.get $n0) (i32.const 4)))
          (i32.and (local.get $l0) (i32.const 15))))
        (local.set $k2 (call $inline.tail (i32.add (local.get $p1) (i32.shl (local.get $n1) (i32.const 4)))
          (i32.and (local.get $l1) (i32.const 15))))
        (local.set $k3 (call $inline.tail (i32.add (local.get $p2) (i32.shl (local.get $n2) (i32.const 4)))
          (i32.and (local.get $l2) (i32.const 15))))
        (local.set $k4 (call $inline.tail (i32.add (local.get $p3) (i32.shl (local.get $n3) (i32.const 4)))
          (i32.and (local.get $l3) (i32.const 15))))
        (local.set $t0 (call $inline.zipLo (local.get $k1) (local.get $k2)))
        (local.set $t1 (call $inline.zipLo (local.get $k3) (local.get $k4)))
        (local.set $t2 (call $inline.zipHi (local.get $k1) (local.get $k2)))
        (local.set $t3 (call $inline.zipHi (local.get $k3) (local.get $k4)))
        (local.set $h4
          (v128.xor (local.get $h4) (call $inline.mix4 (call $inline.hi64 (local.get $t2) (local.get $t3)))))
        (local.set $h3
          (v128.xor (local.get $h3) (call $inline.mix3 (call $inline.lo64 (local.get $t2) (local.get $t3)))))
        (local.set $h2
          (v128.xor (local.get $h2) (call $inline.mix2 (call $inline.hi64 (local.get $t0) (local.get $t1)))))
        (local.set $h1
          (v128.xor (local.get $h1) (call $inline.mix1 (call $inline.lo64 (local.get $t0) (local.get $t1)))))
        ;; Finalization: the length into each lane, the lanes into each other, fmix32, the lanes into each other.
        (local.set $h1 (v128.xor (local.get $h1) (local.get $lengths)))
        (local.set $h2 (v128.xor (local.get $h2) (local.get $lengths)))
        (local.set $h3 (v128.xor (local.get $h3) (local.get $lengths)))
        (local.set $h4 (v128.xor (local.get $h4) (local.get $lengths)))
        (local.set $h1 (call $inline.sum (local.get $h1) (local.get $h2) (local.get $h3) (local.get $h4)))
        (local.set $h2 (call $inline.fmix (i32x4.add (local.get $h2) (local.get $h1))))
        (local.set $h3 (call $inline.fmix (i32x4.add (local.get $h3) (local.get $h1))))
        (local.set $h4 (call $inline.fmix (i32x4.add (local.get $h4) (local.get $h1))))
        (local.set $h1 (call $inline.fmix (local.get $h1)))
        (local.set $h1 (call $inline.sum (local.get $h1) (local.get $h2) (local.get $h3) (local.get $h4)))
        (local.set $h2 (i32x4.add (local.get $h2) (local.get $h1)))
        (local.set $h3 (i32x4.add (local.get $h3) (local.get $h1)))
        (local.set $h4 (i32x4.add (local.get $h4) (local.get $h1)))
        ;; Back to a key a vector (the same transpose), each stored at its key's place.
        (local.set $t0 (call $inline.zipLo (local.get $h1) (local.get $h2)))
        (local.set $t1 (call $inline.zipLo (local.get $h3) (local.get $h4)))
        (local.set $t2 (call $inline.zipHi (local.get $h1) (local.get $h2)))
        (local.set $t3 (call $inline.zipHi (local.get $h3) (local.get $h4)))
        (v128.store (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 4)))
          (call $inline.lo64 (local.get $t0) (local.get $t1)))
        (v128.store (i32.add (local.get $out) (i32.shl (local.get $j1) (i32.const 4)))
          (call $inline.hi64 (local.get $t0) (local.get $t1)))
        (v128.store (i32.add (local.get $out) (i32.shl (local.get $j2) (i32.const 4)))
          (call $inline.lo64 (local.get $t2) (local.get $t3)))
        (v128.store (i32.add (local.get $out) (i32.shl (local.get $j3) (i32.const 4)))
          (call $inline.hi64 (local.get $t2) (local.get $t3)))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $keys)))))
