;; The standard and partitioned layouts' probes and marks for a batch of keys already hashed (FORMAT.md section 5,
;; as engine.ts's markAt and probeAt do on their narrow path over a one-page store, bit for bit:
;; test/wasm/blocked-instance.spec.ts and stride-instance.spec.ts), over bits that live in this module's memory.
;; The memory is the filter's own (imported), laid out by blocked-instance.ts and stride-instance.ts:
;;   [0, 16384)        the hashes: key j's h1..h4 at 16*j, j < n <= 1024;
;;   [16384, 17408)    the answers: one byte per key;
;;   [17408]           where the touch loop leaves the OR of the bytes it read (nothing reads it);
;;   [24576, 65536)    the batch's positions, key j's position i at 24576 + 4*(j*k + i): n*k <= 10240;
;;   [65536, ...)      the filter's bits, bit i is bit i & 7 of byte i >>> 3.
;;
;; Key j's k positions are i*stride + floor(p(i) * scale) in binary64, p(i) = h1 + h2*i + h3*i^2 + h4*i^3
;; (mod 2^32, unsigned) by forward differences: scale = range * 2^-32, so each offset is in [0, range); the standard
;; layout has range m and stride 0, the partitioned layout range and stride s = m / k. Every position is below
;; m <= 2^32, an unsigned 32-bit integer.
;;
;; probe(n, scale, stride, k): answers[j] = 1 when all k bits of key j are set, else 0; returns how many 1s.
;; mark(n, scale, stride, k): sets the k bits of each key in order; answers[j] = 1 when one of key j's bits was 0
;; (it was new); returns how many were new. Both first compute every position of the batch, then read one byte at
;; each, so all the batch's cache misses are in flight together before the keys are taken in order.
(module
  (import "filter" "memory" (memory 2))
  ;; Writes the n*k positions at 24576, then reads the byte of each.
  (func $positions (param $n i32) (param $scale f64) (param $stride i32) (param $k i32)
    (local $h i32) (local $end i32) (local $at i32) (local $i i32) (local $base i32) (local $sink i32)
    (local $p i32) (local $d1 i32) (local $d2 i32) (local $d3 i32) (local $h3 i32) (local $h4 i32)
    (local.set $end (i32.shl (local.get $n) (i32.const 4)))
    (local.set $at (i32.const 24576))
    (block $keysDone
      (loop $keys
        (br_if $keysDone (i32.ge_u (local.get $h) (local.get $end)))
        (local.set $h3 (i32.load offset=8 (local.get $h)))
        (local.set $h4 (i32.load offset=12 (local.get $h)))
        (local.set $p (i32.load (local.get $h)))
        (local.set $d1 (i32.add (i32.load offset=4 (local.get $h)) (i32.add (local.get $h3) (local.get $h4))))
        (local.set $d3 (i32.mul (local.get $h4) (i32.const 6)))
        (local.set $d2 (i32.add (i32.shl (local.get $h3) (i32.const 1)) (local.get $d3)))
        (local.set $base (i32.const 0))
        (local.set $i (i32.const 0))
        (block $done
          (loop $each
            (br_if $done (i32.ge_u (local.get $i) (local.get $k)))
            (i32.store (local.get $at)
              (i32.add (local.get $base)
                (i32.trunc_f64_u (f64.floor (f64.mul (f64.convert_i32_u (local.get $p)) (local.get $scale))))))
            (local.set $at (i32.add (local.get $at) (i32.const 4)))
            (local.set $base (i32.add (local.get $base) (local.get $stride)))
            (local.set $p (i32.add (local.get $p) (local.get $d1)))
            (local.set $d1 (i32.add (local.get $d1) (local.get $d2)))
            (local.set $d2 (i32.add (local.get $d2) (local.get $d3)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $each)))
        (local.set $h (i32.add (local.get $h) (i32.const 16)))
        (br $keys)))
    ;; The touch loop: loads alone, so they overlap.
    (local.set $end (local.get $at))
    (local.set $at (i32.const 24576))
    (block $touched
      (loop $lines
        (br_if $touched (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $sink
          (i32.or (local.get $sink)
            (i32.load8_u offset=65536 (i32.shr_u (i32.load (local.get $at)) (i32.const 3)))))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $lines)))
    (i32.store8 (i32.const 17408) (local.get $sink)))
  (func (export "probe") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (local $j i32) (local $at i32) (local $last i32) (local $position i32) (local $yes i32) (local $hits i32)
    (call $positions (local.get $n) (local.get $scale) (local.get $stride) (local.get $k))
    (local.set $at (i32.const 24576))
    (block $keysDone
      (loop $keys
        (br_if $keysDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $last (i32.add (local.get $at) (i32.shl (local.get $k) (i32.const 2))))
        (local.set $yes (i32.const 1))
        (block $bitsDone
          (loop $bits
            (br_if $bitsDone (i32.ge_u (local.get $at) (local.get $last)))
            (local.set $position (i32.load (local.get $at)))
            (if
              (i32.eqz
                (i32.and
                  (i32.load8_u offset=65536 (i32.shr_u (local.get $position) (i32.const 3)))
                  (i32.shl (i32.const 1) (i32.and (local.get $position) (i32.const 7)))))
              (then
                (local.set $yes (i32.const 0))
                (br $bitsDone)))
            (local.set $at (i32.add (local.get $at) (i32.const 4)))
            (br $bits)))
        (local.set $at (local.get $last))
        (i32.store8 (i32.add (i32.const 16384) (local.get $j)) (local.get $yes))
        (local.set $hits (i32.add (local.get $hits) (local.get $yes)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $hits))
  (func (export "mark") (param $n i32) (param $scale f64) (param $stride i32) (param $k i32) (result i32)
    (local $j i32) (local $at i32) (local $last i32) (local $position i32) (local $byte i32) (local $old i32)
    (local $mask i32) (local $fresh i32) (local $added i32)
    (call $positions (local.get $n) (local.get $scale) (local.get $stride) (local.get $k))
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
            (local.set $old (i32.load8_u offset=65536 (local.get $byte)))
            (i32.store8 offset=65536 (local.get $byte) (i32.or (local.get $old) (local.get $mask)))
            (local.set $fresh (i32.or (local.get $fresh) (i32.and (i32.xor (local.get $old) (i32.const -1)) (local.get $mask))))
            (local.set $at (i32.add (local.get $at) (i32.const 4)))
            (br $bits)))
        (local.set $fresh (i32.ne (local.get $fresh) (i32.const 0)))
        (i32.store8 (i32.add (i32.const 16384) (local.get $j)) (local.get $fresh))
        (local.set $added (i32.add (local.get $added) (local.get $fresh)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $added))
)
