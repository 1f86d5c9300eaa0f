;; MurmurHash3 x86_128 (Austin Appleby, public domain; smhasher's MurmurHash3_x86_128) of many keys in one call:
;; the same words h1..h4 as murmur3.ts's hashInto for the same bytes and seed (test/wasm/murmur3-instance.spec.ts).
;;
;; Memory (4 pages, 256 KiB), laid out by the caller (murmur3-instance.ts):
;;   [0, 4096)          starts: key j begins at byte starts[j], j < n ≤ 1024;
;;   [4096, 8192)       ends: key j ends before byte ends[j] (keys one after another, or lines between separators);
;;   [8192, 24576)      the hashes: key j's h1..h4 at 8192 + 16·j;
;;   [24576, 28672)     line ends: where line j's next line begins (just past its separator), plus a bias;
;;   [65536, 196608)    the window the caller copies the keys' bytes into;
;;   [196608, 262144)   slack: the tail of a key is read as two 8-byte words from where its last block ends, up to
;;                      15 bytes past the key's end (masked off), so a key ending at the window's end reads in here.
;;
;; hashKeys(starts, ends, n, seed, out): hashes the n keys [starts[j], ends[j]), h1..h4 of key j to out + 16·j.
;; One function with everything inlined, so the JIT keeps the four lanes in registers across a batch.
;;
;; splitLines(from, to, separator, crlf, max, bias): finds the lines of [from, to) that end with the byte
;; `separator`, at most `max` of them, from `from` on: line j's key goes to starts[j] and ends[j] (the line without
;; its separator, and with crlf set without a CR just before it), and ends at 24576 + 4*j get (just past its
;; separator) + bias. Returns how many lines; bytes after the last separator found are not a line. The search reads
;; 8 bytes at a time (a separator byte is a zero byte of word XOR pattern: (x - 0x01..01) & ~x & 0x80..80 marks
;; the lowest one exactly), up to 7 bytes past `to` (the slack).
(module
  (memory (export "memory") 4)
  (func (export "splitLines") (param $from i32) (param $to i32) (param $separator i32) (param $crlf i32)
    (param $max i32) (param $bias i32) (result i32)
    (local $n i32) (local $start i32) (local $p i32) (local $at i32) (local $end i32)
    (local $pattern i64) (local $x i64) (local $hit i64)
    (local.set $pattern (i64.mul (i64.extend_i32_u (local.get $separator)) (i64.const 0x0101010101010101)))
    (local.set $start (local.get $from))
    (local.set $p (local.get $from))
    (block $done
      (loop $lines
        (br_if $done (i32.ge_u (local.get $n) (local.get $max)))
        ;; the next separator at or after p, or done when there is none before `to`
        (block $found
          (loop $scan
            (br_if $done (i32.ge_u (local.get $p) (local.get $to)))
            (local.set $x (i64.xor (i64.load (local.get $p)) (local.get $pattern)))
            (local.set $hit
              (i64.and
                (i64.and (i64.sub (local.get $x) (i64.const 0x0101010101010101)) (i64.xor (local.get $x) (i64.const -1)))
                (i64.const 0x8080808080808080)))
            (if (i64.ne (local.get $hit) (i64.const 0))
              (then
                (local.set $at
                  (i32.add (local.get $p) (i32.wrap_i64 (i64.shr_u (i64.ctz (local.get $hit)) (i64.const 3)))))
                (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
                (br $found)))
            (local.set $p (i32.add (local.get $p) (i32.const 8)))
            (br $scan)))
        (local.set $end (local.get $at))
        (if (i32.and (local.get $crlf) (i32.gt_u (local.get $at) (local.get $start)))
          (then
            (if (i32.eq (i32.load8_u (i32.sub (local.get $at) (i32.const 1))) (i32.const 13))
              (then (local.set $end (i32.sub (local.get $at) (i32.const 1)))))))
        (i32.store (i32.shl (local.get $n) (i32.const 2)) (local.get $start))
        (i32.store offset=4096 (i32.shl (local.get $n) (i32.const 2)) (local.get $end))
        (i32.store offset=24576 (i32.shl (local.get $n) (i32.const 2))
          (i32.add (i32.add (local.get $at) (i32.const 1)) (local.get $bias)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (local.set $start (i32.add (local.get $at) (i32.const 1)))
        (local.set $p (local.get $start))
        (br $lines)))
    (local.get $n))
  (func (export "hashKeys") (param $starts i32) (param $ends i32) (param $n i32) (param $seed i32) (param $out i32)
    (local $key i32) (local $p i32) (local $end i32) (local $length i32) (local $blocksEnd i32)
    (local $h1 i32) (local $h2 i32) (local $h3 i32) (local $h4 i32)
    (local $k1 i32) (local $k2 i32) (local $k3 i32) (local $k4 i32)
    (local $tail i32) (local $lo i64) (local $hi i64)
    (block $keysDone
      (loop $keys
        (br_if $keysDone (i32.ge_u (local.get $key) (local.get $n)))
        (local.set $p (i32.load (i32.add (local.get $starts) (i32.shl (local.get $key) (i32.const 2)))))
        (local.set $end (i32.load (i32.add (local.get $ends) (i32.shl (local.get $key) (i32.const 2)))))
        (local.set $length (i32.sub (local.get $end) (local.get $p)))
        (local.set $blocksEnd (i32.sub (local.get $end) (i32.and (local.get $length) (i32.const 15))))
        (local.set $h1 (local.get $seed))
        (local.set $h2 (local.get $seed))
        (local.set $h3 (local.get $seed))
        (local.set $h4 (local.get $seed))
        ;; The body: 16 bytes a step, four little-endian words k1..k4.
        (block $blocksDone
          (loop $blocks
            (br_if $blocksDone (i32.ge_u (local.get $p) (local.get $blocksEnd)))
            (local.set $h1 (i32.xor (local.get $h1)
              (i32.mul (i32.rotl (i32.mul (i32.load (local.get $p)) (i32.const 0x239b961b)) (i32.const 15))
                (i32.const 0xab0e9789))))
            (local.set $h1 (i32.add (i32.mul (i32.add (i32.rotl (local.get $h1) (i32.const 19)) (local.get $h2))
              (i32.const 5)) (i32.const 0x561ccd1b)))
            (local.set $h2 (i32.xor (local.get $h2)
              (i32.mul (i32.rotl (i32.mul (i32.load offset=4 (local.get $p)) (i32.const 0xab0e9789)) (i32.const 16))
                (i32.const 0x38b34ae5))))
            (local.set $h2 (i32.add (i32.mul (i32.add (i32.rotl (local.get $h2) (i32.const 17)) (local.get $h3))
              (i32.const 5)) (i32.const 0x0bcaa747)))
            (local.set $h3 (i32.xor (local.get $h3)
              (i32.mul (i32.rotl (i32.mul (i32.load offset=8 (local.get $p)) (i32.const 0x38b34ae5)) (i32.const 17))
                (i32.const 0xa1e38b93))))
            (local.set $h3 (i32.add (i32.mul (i32.add (i32.rotl (local.get $h3) (i32.const 15)) (local.get $h4))
              (i32.const 5)) (i32.const 0x96cd1c35)))
            (local.set $h4 (i32.xor (local.get $h4)
              (i32.mul (i32.rotl (i32.mul (i32.load offset=12 (local.get $p)) (i32.const 0xa1e38b93)) (i32.const 18))
                (i32.const 0x239b961b))))
            (local.set $h4 (i32.add (i32.mul (i32.add (i32.rotl (local.get $h4) (i32.const 13)) (local.get $h1))
              (i32.const 5)) (i32.const 0x32ac3b17)))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (br $blocks)))
        ;; The tail: its 0..15 bytes as two little-endian 8-byte words, the bytes past the key masked to zero (as
        ;; the reference's switch leaves them). A zero word mixes to zero, so mixing every k is what the reference's
        ;; "only the words the tail reaches" does.
        (local.set $tail (i32.and (local.get $length) (i32.const 15)))
        (local.set $lo (i64.load (local.get $p)))
        (local.set $hi (i64.load offset=8 (local.get $p)))
        (if (i32.lt_u (local.get $tail) (i32.const 8))
          (then
            (local.set $lo (i64.and (local.get $lo)
              (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl (local.get $tail) (i32.const 3))))
                (i64.const 1))))
            (local.set $hi (i64.const 0)))
          (else
            (local.set $hi (i64.and (local.get $hi)
              (i64.sub (i64.shl (i64.const 1)
                (i64.extend_i32_u (i32.shl (i32.sub (local.get $tail) (i32.const 8)) (i32.const 3))))
                (i64.const 1))))))
        (local.set $k1 (i32.wrap_i64 (local.get $lo)))
        (local.set $k2 (i32.wrap_i64 (i64.shr_u (local.get $lo) (i64.const 32))))
        (local.set $k3 (i32.wrap_i64 (local.get $hi)))
        (local.set $k4 (i32.wrap_i64 (i64.shr_u (local.get $hi) (i64.const 32))))
        (local.set $h4 (i32.xor (local.get $h4)
          (i32.mul (i32.rotl (i32.mul (local.get $k4) (i32.const 0xa1e38b93)) (i32.const 18)) (i32.const 0x239b961b))))
        (local.set $h3 (i32.xor (local.get $h3)
          (i32.mul (i32.rotl (i32.mul (local.get $k3) (i32.const 0x38b34ae5)) (i32.const 17)) (i32.const 0xa1e38b93))))
        (local.set $h2 (i32.xor (local.get $h2)
          (i32.mul (i32.rotl (i32.mul (local.get $k2) (i32.const 0xab0e9789)) (i32.const 16)) (i32.const 0x38b34ae5))))
        (local.set $h1 (i32.xor (local.get $h1)
          (i32.mul (i32.rotl (i32.mul (local.get $k1) (i32.const 0x239b961b)) (i32.const 15)) (i32.const 0xab0e9789))))
        ;; Finalization: the length into each lane, the lanes into each other, fmix32 on each (written out: a call
        ;; per lane is not inlined by every engine), and the lanes into each other again.
        (local.set $h1 (i32.xor (local.get $h1) (local.get $length)))
        (local.set $h2 (i32.xor (local.get $h2) (local.get $length)))
        (local.set $h3 (i32.xor (local.get $h3) (local.get $length)))
        (local.set $h4 (i32.xor (local.get $h4) (local.get $length)))
        (local.set $h1 (i32.add (i32.add (i32.add (local.get $h1) (local.get $h2)) (local.get $h3)) (local.get $h4)))
        (local.set $h2 (i32.add (local.get $h2) (local.get $h1)))
        (local.set $h3 (i32.add (local.get $h3) (local.get $h1)))
        (local.set $h4 (i32.add (local.get $h4) (local.get $h1)))
        (local.set $h1 (i32.mul (i32.xor (local.get $h1) (i32.shr_u (local.get $h1) (i32.const 16))) (i32.const 0x85ebca6b)))
        (local.set $h1 (i32.mul (i32.xor (local.get $h1) (i32.shr_u (local.get $h1) (i32.const 13))) (i32.const 0xc2b2ae35)))
        (local.set $h1 (i32.xor (local.get $h1) (i32.shr_u (local.get $h1) (i32.const 16))))
        (local.set $h2 (i32.mul (i32.xor (local.get $h2) (i32.shr_u (local.get $h2) (i32.const 16))) (i32.const 0x85ebca6b)))
        (local.set $h2 (i32.mul (i32.xor (local.get $h2) (i32.shr_u (local.get $h2) (i32.const 13))) (i32.const 0xc2b2ae35)))
        (local.set $h2 (i32.xor (local.get $h2) (i32.shr_u (local.get $h2) (i32.const 16))))
        (local.set $h3 (i32.mul (i32.xor (local.get $h3) (i32.shr_u (local.get $h3) (i32.const 16))) (i32.const 0x85ebca6b)))
        (local.set $h3 (i32.mul (i32.xor (local.get $h3) (i32.shr_u (local.get $h3) (i32.const 13))) (i32.const 0xc2b2ae35)))
        (local.set $h3 (i32.xor (local.get $h3) (i32.shr_u (local.get $h3) (i32.const 16))))
        (local.set $h4 (i32.mul (i32.xor (local.get $h4) (i32.shr_u (local.get $h4) (i32.const 16))) (i32.const 0x85ebca6b)))
        (local.set $h4 (i32.mul (i32.xor (local.get $h4) (i32.shr_u (local.get $h4) (i32.const 13))) (i32.const 0xc2b2ae35)))
        (local.set $h4 (i32.xor (local.get $h4) (i32.shr_u (local.get $h4) (i32.const 16))))
        (local.set $h1 (i32.add (i32.add (i32.add (local.get $h1) (local.get $h2)) (local.get $h3)) (local.get $h4)))
        (local.set $h2 (i32.add (local.get $h2) (local.get $h1)))
        (local.set $h3 (i32.add (local.get $h3) (local.get $h1)))
        (local.set $h4 (i32.add (local.get $h4) (local.get $h1)))
        (i32.store (local.get $out) (local.get $h1))
        (i32.store offset=4 (local.get $out) (local.get $h2))
        (i32.store offset=8 (local.get $out) (local.get $h3))
        (i32.store offset=12 (local.get $out) (local.get $h4))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $key (i32.add (local.get $key) (i32.const 1)))
        (br $keys)))))
