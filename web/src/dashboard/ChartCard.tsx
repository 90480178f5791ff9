// Charts of the dashboard and the reports: Chart.js, loaded with a dynamic
// import (screens without charts never download it), each chart's figures
// also in a table, and its bars and points leading to the tasks behind them.
import type { ChartConfiguration, ChartOptions } from 'chart.js';
import type { Ref } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n';
import { Link, navigate } from '../router';
import { ErrorMessage } from '../ui';

/** Cell is a cell of a chart's table: a figure, or a figure that opens the tasks behind it. */
export type Cell = string | number | { text: string; href: string };

/** PointLink is the link of a chart's point (or bar): its dataset and its index there. */
export type PointLink = (dataset: number, index: number) => string | undefined;

/**
 * useChart draws config on the returned canvas once the library has
 * loaded, and again when config changes; with pointLink a point clicked
 * opens its link (the latest pointLink given). error is the library's
 * failure to load.
 */
export function useChart(config: ChartConfiguration, pointLink?: PointLink) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const link = useRef(pointLink);
  link.current = pointLink;
  const clickable = pointLink !== undefined;
  // The chart is drawn again when its figures change (the config is made anew each render).
  const figures = JSON.stringify(config);
  const latest = useRef(config);
  latest.current = config;
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let chart: { destroy(): void } | null = null;
    let gone = false;
    import('./charts')
      .then(({ Chart }) => {
        if (gone || !canvas.current) return;
        const click: Partial<ChartOptions> = clickable
          ? {
              onClick: (_e, els) => {
                const to = els[0] && link.current?.(els[0].datasetIndex, els[0].index);
                if (to) navigate(to);
              },
              onHover: (e, els) => {
                (e.native?.target as HTMLElement | undefined)?.style.setProperty('cursor', els.length ? 'pointer' : 'default');
              },
            }
          : {};
        const { options, ...rest } = latest.current;
        chart = new Chart(canvas.current, {
          ...rest,
          options: { responsive: true, maintainAspectRatio: false, animation: false, ...click, ...options },
        } as ChartConfiguration);
      })
      .catch(setError);
    return () => {
      gone = true;
      chart?.destroy();
    };
  }, [clickable, figures]);
  return { canvas: canvas as Ref<HTMLCanvasElement>, error };
}

/**
 * ChartCard draws one chart; the same figures are in a table for screen
 * readers. With links (one per bar, as the table's rows), a bar clicked,
 * or the first cell of its row, opens it; pointLink instead gives the
 * link of each point of a chart of several lines, whose table's cells
 * carry their own links.
 */
export function ChartCard({
  title,
  config,
  table,
  links,
  pointLink,
  weeks = false,
}: {
  title: string;
  config: ChartConfiguration;
  table: Cell[][];
  links?: string[];
  pointLink?: PointLink;
  /** weeks: the table has a column per week (FiguresTable). */
  weeks?: boolean;
}) {
  const { canvas, error } = useChart(config, pointLink ?? (links && ((_d, i) => links[i])));
  const id = `chart-${title.replace(/\W+/g, '-').toLowerCase()}`;
  const [head, ...rows] = table;
  return (
    <section class="card chart-card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {error !== null && <ErrorMessage error={error} />}
      <div class="chart-box">
        <canvas ref={canvas} role="img" aria-label={title} data-testid="chart" />
      </div>
      <details>
        <summary>{t('dash.data')}</summary>
        {rows.length === 0 ? (
          <p class="muted">{t('dash.empty')}</p>
        ) : (
          <FiguresTable
            weeks={weeks}
            head={head}
            rows={rows.map((r, i) => (links?.[i] ? [{ text: String(cellText(r[0])), href: links[i] }, ...r.slice(1)] : r))}
          />
        )}
      </details>
    </section>
  );
}

/**
 * FiguresTable is a table of figures under head, scrolling sideways when
 * wide; cells with a link open it. With weeks, a column per week: the
 * figures are not wrapped.
 */
export function FiguresTable({ head, rows, weeks = false }: { head: Cell[]; rows: Cell[][]; weeks?: boolean }) {
  // Focusable, so that a keyboard scrolls it sideways.
  return (
    <div class="table-scroll" tabIndex={0}>
      <table class={weeks ? 'table table-weeks' : 'table'}>
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={i} scope="col">
                {cellText(h)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              {r.map((c, j) => (
                <td key={j}>{typeof c === 'object' ? <Link href={c.href}>{c.text}</Link> : c}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const cellText = (c: Cell) => (typeof c === 'object' ? c.text : c);
