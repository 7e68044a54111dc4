/** English articles and plurals for concept names (the helpers live in src/wordnet/nouns.ts). */
import { article } from '../wordnet/nouns';

export { article, plural } from '../wordnet/nouns';

export function withArticle(phrase: string): string {
  return `${article(phrase)} ${phrase}`;
}
