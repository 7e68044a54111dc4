/** n-gram counting shared by BLEU and CIDEr-D. Keys join tokens with a space. */

/** Counts of every n-gram of order 1..maxN, one map per order (index 0 = unigrams). */
export function countNgrams(tokens: readonly string[], maxN: number): Map<string, number>[] {
  const byOrder: Map<string, number>[] = [];
  for (let n = 1; n <= maxN; n++) {
    const counts = new Map<string, number>();
    for (let i = 0; i + n <= tokens.length; i++) {
      const key = n === 1 ? tokens[i] : tokens.slice(i, i + n).join(' ');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    byOrder.push(counts);
  }
  return byOrder;
}
