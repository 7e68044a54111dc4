/** SVG text of the world's drawings: numbers to two decimals, HSL colours, and the four primitives. */

export function fmt(x: number): string {
  return (Math.round(x * 100) / 100).toString();
}

export function hsl(h: number, s: number, l: number): string {
  return `hsl(${Math.round(((h % 360) + 360) % 360)},${Math.round(s * 100)}%,${Math.round(l * 100)}%)`;
}

export const rect = (x: number, y: number, w: number, h: number, fill: string, extra = ''): string =>
  `<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(Math.max(0.5, w))}" height="${fmt(Math.max(0.5, h))}" fill="${fill}"${extra}/>`;
export const ellipse = (cx: number, cy: number, rx: number, ry: number, fill: string, extra = ''): string =>
  `<ellipse cx="${fmt(cx)}" cy="${fmt(cy)}" rx="${fmt(Math.max(0.5, rx))}" ry="${fmt(Math.max(0.5, ry))}" fill="${fill}"${extra}/>`;
export const circle = (cx: number, cy: number, r: number, fill: string, extra = ''): string =>
  `<circle cx="${fmt(cx)}" cy="${fmt(cy)}" r="${fmt(Math.max(0.5, r))}" fill="${fill}"${extra}/>`;
export const poly = (pts: ReadonlyArray<readonly [number, number]>, fill: string, extra = ''): string =>
  `<polygon points="${pts.map(([x, y]) => `${fmt(x)},${fmt(y)}`).join(' ')}" fill="${fill}"${extra}/>`;
