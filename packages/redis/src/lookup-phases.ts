// How BitStore's lookups split their reads into phases: the two numbers and the measurements they come from.

/**
 * Bits a lookup reads of every key before it reads the rest of the bits of the keys still possible (see
 * BitStore.hasRun). An absent key in a filter whose bits are a fraction q set costs j + q^j (k − j) reads
 * when the first phase reads j: at the design fill q = 1/2 and k = 7 that is 4 for j = 1, 3.25 for j = 2, 3.5 for
 * j = 3; in a filter a fifth full (q ≈ 0.14), 1.8 and 2.1. A present key costs k reads whatever j is. A batch
 * that fits one command (256 keys, bit-store.ts's CHUNK_KEYS) reads all k in one phase: there a second round trip costs more than
 * the reads it saves (`has` of one present key ran at 2.5 k/s in two phases, 4.0 k/s in one).
 */
export const FIRST_READS = 2;

/**
 * The share of present answers in a store's last lookup from which its next one reads all k bits in one phase. A
 * phase costs a round trip and the client's work per command, so two phases only pay while they end most keys
 * early. Measured on one node (standard filter, k = 7, 200,000 URL keys in batches of 1,000, wall time a key):
 * a present key 3.0 µs in two phases and 2.7 in one, an absent key 1.7 and 3.0. One phase is cheaper for a batch
 * whose share s of present keys has 2.7 s + 3.0 (1 − s) < 3.0 s + 1.7 (1 − s), that is s > 0.8. The last lookup's
 * share stands for the next one's (a workload's mix changes slowly: a deduplicating stream mostly repeats, a crawler
 * mostly meets new URLs); a wrong guess costs one batch at the slower of the two, never a wrong answer.
 */
export const ONE_PHASE_SHARE = 0.8;
