/**
 * One thread's dense matrix-product rate on the active backend, as a training step's products reach it through
 * tfjs: the limit a profile sets each training run's product FLOPs beside (cckit's native kernels where they are
 * loaded, else wasm). Square products of `size`, repeated for about `budgetMs`, after one untimed product.
 */
import { loadTf } from './backend';

export function denseProductGflops(size = 512, budgetMs = 600): number {
  const tf = loadTf();
  const a = tf.randomUniform([size, size], -1, 1, 'float32', 1);
  const b = tf.randomUniform([size, size], -1, 1, 'float32', 2);
  const product = () => {
    const c = tf.matMul(a, b);
    c.dataSync();
    c.dispose();
  };
  try {
    product();
    let products = 0;
    const started = performance.now();
    while (performance.now() - started < budgetMs) {
      product();
      products++;
    }
    return (products * 2 * size ** 3) / ((performance.now() - started) / 1000) / 1e9;
  } finally {
    a.dispose();
    b.dispose();
  }
}
