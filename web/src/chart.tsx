import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface DailyPoint {
  date: string;
  value: number;
}

/** A line chart of one value per day (uPlot on a canvas), with the numbers as a table for screen readers. */
export function DailyChart({ title, points, color }: { title: string; points: DailyPoint[]; color: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const xs = points.map((p) => Date.parse(`${p.date}T12:00:00Z`) / 1000);
    const ys = points.map((p) => p.value);
    const plot = new uPlot(
      {
        width: Math.max(240, element.clientWidth),
        height: 200,
        legend: { show: false },
        scales: { x: { time: true } },
        axes: [{}, { size: 40 }],
        series: [{}, { label: title, stroke: color, width: 2, fill: `${color}22` }],
      },
      [xs, ys],
      element,
    );
    const resize = () => plot.setSize({ width: Math.max(240, element.clientWidth), height: 200 });
    addEventListener("resize", resize);
    return () => {
      removeEventListener("resize", resize);
      plot.destroy();
    };
  }, [points, title, color]);
  const total = points.reduce((sum, p) => sum + p.value, 0);
  return (
    <figure class="chart">
      <figcaption>
        {title}: {total} in {points.length} days
      </figcaption>
      <div ref={box} class="plot" role="img" aria-label={`${title} per day, ${total} in total`} />
      <details>
        <summary>Show the numbers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">{title}</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.date}>
                <td>{p.date}</td>
                <td>{p.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** Counts by name as horizontal bars (plain HTML: readable as a list). */
export function Bars({ title, counts }: { title: string; counts: Record<string, number> }) {
  const entries = Object.entries(counts);
  const max = Math.max(1, ...entries.map(([, n]) => n));
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <ul class="bars">
        {entries.map(([name, n]) => (
          <li key={name}>
            <span class="bar-label">{name.replaceAll("_", " ")}</span>
            <span class="bar" style={{ width: `${(n / max) * 100}%` }} aria-hidden="true" />
            <span class="bar-value">{n}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
