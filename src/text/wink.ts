/**
 * wink-nlp with its English "lite web" model, loaded when first asked for: the filters' tagger and tokenizer
 * (src/filters/nlp.ts) and SPICE's parser (src/metrics/spice.ts) share it, and a command that needs neither (about 80
 * modules and the model's load) starts without it.
 */
import type { WinkMethods } from 'wink-nlp';

/** A new wink-nlp instance over the English model with `pipe` (e.g. ['pos']; [] tokenizes only). */
export function winkInstance(pipe: string[]): WinkMethods {
  // CommonJS modules whose export is what `import x from` gives (esModuleInterop's default)
  const winkNLP = require('wink-nlp') as typeof import('wink-nlp').default;
  const model = require('wink-eng-lite-web-model') as typeof import('wink-eng-lite-web-model').default;
  return winkNLP(model, pipe);
}
