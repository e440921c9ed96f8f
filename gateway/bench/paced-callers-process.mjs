// Callers on the line at once, each sending one request a second, their seconds staggered
// evenly (caller i starts at i/callers of a second), in a process of its own: the options arrive
// as JSON in argv[2], the result leaves as JSON on stdout in autocannon's shape. autocannon's
// fixed rate sends every connection's request at the same instant each second: a burst of all
// callers at once, which no line of independent callers makes.
// Each caller's first second is not counted: in a new process the first requests pay for loading
// fetch's client and opening its connections (30-200 ms), the load generator's start, not the
// server's latency.
const { url, callers, duration, method, headers, body } = JSON.parse(process.argv[2]);
const latencies = [];
let non2xx = 0;
let errors = 0;
let sent = 0;
const started = performance.now();
const measuredFrom = started + 1000;
const end = measuredFrom + duration * 1000;
const sleepUntil = (t) => new Promise((resolve) => setTimeout(resolve, Math.max(0, t - performance.now())));

async function caller(index) {
  for (let at = started + (index * 1000) / callers; at < end; at += 1000) {
    await sleepUntil(at);
    const counted = at >= measuredFrom;
    const sentAt = performance.now();
    sent++;
    try {
      const res = await fetch(url, { method, headers, body });
      await res.arrayBuffer();
      if (!counted) continue;
      if (res.status < 200 || res.status > 299) non2xx++;
      latencies.push(performance.now() - sentAt);
    } catch {
      if (counted) errors++;
    }
  }
}

await Promise.all(Array.from({ length: callers }, (_, i) => caller(i)));
latencies.sort((a, b) => a - b);
const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN);
process.stdout.write(
  JSON.stringify({
    requests: { average: latencies.length / duration, sent },
    latency: { p50: at(0.5), p99: at(0.99) },
    non2xx,
    errors,
  }),
);
