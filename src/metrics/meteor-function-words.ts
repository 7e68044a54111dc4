/**
 * cckit's English function words for METEOR's content/function weighting (δ).
 *
 * METEOR 1.5 ships its own list (the most frequent tokens of a news corpus); cckit does not copy it.
 * This list is written for cckit from English grammar: articles and determiners, pronouns,
 * prepositions, conjunctions, auxiliary and modal verbs, a few frequent particles and adverbs, the
 * contraction pieces the PTB tokenizer splits off, and punctuation tokens. A token in the list counts
 * with weight 1 − δ, any other with δ. docs/meteor.md measures what the difference costs.
 */
export const METEOR_ENGLISH_FUNCTION_WORDS: readonly string[] = [
  // articles, determiners, quantifiers
  'a', 'an', 'the', 'this', 'that', 'these', 'those', 'some', 'any', 'no', 'every', 'each', 'all', 'both',
  'either', 'neither', 'such', 'what', 'which', 'whose', 'other', 'another', 'much', 'many', 'more', 'most',
  'few', 'less', 'several',
  // pronouns
  'i', 'me', 'my', 'mine', 'we', 'us', 'our', 'ours', 'you', 'your', 'yours', 'he', 'him', 'his', 'she',
  'her', 'hers', 'it', 'its', 'they', 'them', 'their', 'theirs', 'who', 'whom', 'one', 'itself', 'themselves',
  // prepositions
  'of', 'in', 'on', 'at', 'by', 'for', 'with', 'from', 'to', 'into', 'onto', 'over', 'under', 'about',
  'above', 'below', 'between', 'through', 'during', 'before', 'after', 'against', 'among', 'around',
  'behind', 'beside', 'near', 'off', 'out', 'up', 'down', 'across', 'along', 'toward', 'towards', 'upon',
  'within', 'without', 'via', 'per',
  // conjunctions and subordinators
  'and', 'or', 'but', 'nor', 'so', 'yet', 'if', 'than', 'as', 'because', 'while', 'when', 'where', 'whether',
  'although', 'though', 'unless', 'until',
  // auxiliaries and modals
  'be', 'is', 'am', 'are', 'was', 'were', 'been', 'being', 'have', 'has', 'had', 'having', 'do', 'does',
  'did', 'will', 'would', 'shall', 'should', 'can', 'could', 'may', 'might', 'must',
  // particles and frequent adverbs
  'not', 'there', 'here', 'then', 'also', 'just', 'very', 'too', 'only',
  // pieces of contractions split off by the PTB tokenizer
  "'s", "'re", "'ve", "'ll", "'d", "'m", "n't", 's', 't',
  // punctuation tokens that survive tokenisation
  ',', '.', ':', ';', '?', '!', '"', "'", '(', ')', '-', '--', '$', '%', '&', '-lrb-', '-rrb-',
];
