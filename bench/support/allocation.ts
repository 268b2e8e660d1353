import { GCProfiler, getHeapStatistics } from 'node:v8';

/**
 * Bytes allocated on the JS heap while `work` runs: what the heap grew by, plus what every garbage
 * collection in between freed (v8.GCProfiler reports each one's heap before and after). V8 keeps
 * no running total of allocations; this sum is that total to within the objects promoted or freed
 * outside a reported GC, which is noise against tens of thousands of calls.
 */
export async function allocatedDuring(work: () => Promise<void>): Promise<number> {
  const profiler = new GCProfiler();
  profiler.start();
  const before = getHeapStatistics().used_heap_size;
  await work();
  const after = getHeapStatistics().used_heap_size;
  const { statistics } = profiler.stop();
  const freed = statistics.reduce(
    (sum, gc) => sum + gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize,
    0,
  );
  return after - before + freed;
}
