/**
 * Loads an ES-module-only package from this CommonJS build. TypeScript compiles `import()` to
 * `require()` under `module: commonjs`, which Node 20 before 20.19 cannot do for ES modules, so the
 * import is built at run time; the path is resolved here first so it is relative to this package.
 */
import { pathToFileURL } from 'url';

// a real import(), not the require() TypeScript would compile it to
const dynamicImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

const loaded = new Map<string, Promise<unknown>>();

/** The module `name` (a package name or absolute path), imported once per process. */
export function importEsm<T>(name: string): Promise<T> {
  let pending = loaded.get(name);
  if (!pending) {
    pending = dynamicImport(pathToFileURL(require.resolve(name)).href);
    loaded.set(name, pending);
  }
  return pending as Promise<T>;
}
