/** sharp (libvips), loaded on first use so that commands which never touch pixels do not pay for it. */
export type SharpConstructor = typeof import('sharp').default;

let sharpModule: SharpConstructor | null = null;

export function loadSharp(): SharpConstructor {
  if (sharpModule === null) {
    const mod = require('sharp') as SharpConstructor | { default: SharpConstructor };
    sharpModule = typeof mod === 'function' ? mod : mod.default;
  }
  return sharpModule;
}
