import { formatNumber, t } from '../i18n';
import type { TaskDetail } from '../types';

type Channels = NonNullable<TaskDetail['channels']>;
type Span = NonNullable<Channels['talk']>[number];

/** Timeline geometry, in the SVG's own units. */
const width = 1000;
const row = 22;
const gap = 10;

/** seconds shows a length in seconds: "12,5 s". */
const seconds = (s: number) => `${formatNumber(s)} s`;
/** share shows a share from 0 to 1 as a percentage: "65 %". */
const share = (s: number) => `${formatNumber(s * 100)} %`;

/**
 * ChannelsCard shows what a call's channels tell from its audio: a
 * timeline of each side's talk (one row for a mono call) with dead air,
 * holds and overtalk marked, and the figures.
 */
export function ChannelsCard({ channels }: { channels: Channels }) {
  const c = channels;
  const deadAir = c.dead_air ?? [];
  const rows: { label: string; spans: Span[]; cls: string }[] = c.stereo
    ? [
        { label: t('channels.agent'), spans: c.agent_talk ?? [], cls: 'tl-agent' },
        { label: t('channels.customer'), spans: c.customer_talk ?? [], cls: 'tl-customer' },
      ]
    : [{ label: t('channels.talk'), spans: c.talk ?? [], cls: 'tl-talk' }];
  const height = rows.length * (row + gap);
  const x = (s: number) => (c.duration_seconds > 0 ? (s / c.duration_seconds) * width : 0);
  const band = (s: Span, cls: string, y: number, h: number, title: string) => (
    <rect class={cls} x={x(s.start)} y={y} width={Math.max(x(s.end) - x(s.start), 1)} height={h}>
      <title>{`${title}: ${formatNumber(s.start)}–${formatNumber(s.end)} s`}</title>
    </rect>
  );
  const facts: [string, string, string][] = [];
  if (c.stereo) {
    facts.push(
      ['agent-talk', t('channels.agentTalk'), seconds(c.agent_talk_seconds ?? 0)],
      ['customer-talk', t('channels.customerTalk'), seconds(c.customer_talk_seconds ?? 0)],
      ['ratio', t('channels.ratio'), c.agent_talk_ratio === undefined ? '—' : share(c.agent_talk_ratio)],
    );
  }
  facts.push(
    ['silence', t('channels.silence'), share(c.silence_share)],
    ['longest-silence', t('channels.longestSilence'), seconds(c.longest_silence_seconds)],
    ['dead-air', t('channels.deadAir', { seconds: formatNumber(c.dead_air_seconds) }), formatNumber(deadAir.length)],
  );
  if (c.stereo) {
    facts.push(
      [
        'overtalk',
        t('channels.overtalk'),
        t('channels.times', { n: formatNumber(c.overtalk?.length ?? 0), total: seconds(c.overtalk_seconds ?? 0) }),
      ],
      ['holds', t('channels.holds'), formatNumber(c.holds?.length ?? 0)],
    );
    if (c.agent_words_per_minute !== undefined || c.customer_words_per_minute !== undefined) {
      const wpm = (n: number | undefined) => (n === undefined ? '—' : formatNumber(Math.round(n)));
      facts.push([
        'rate',
        t('channels.rate'),
        t('channels.rates', { agent: wpm(c.agent_words_per_minute), customer: wpm(c.customer_words_per_minute) }),
      ]);
    }
  }
  return (
    <section class="card" aria-labelledby="channels-title" data-testid="channels">
      <h2 id="channels-title">{t('channels.title')}</h2>
      {!c.stereo && <p class="muted small">{t('channels.mono')}</p>}
      <div class="timeline">
        <div class="timeline-labels" aria-hidden="true">
          {rows.map((r) => (
            <span key={r.cls} style={{ height: `${row + gap}px` }}>
              {r.label}
            </span>
          ))}
        </div>
        <svg
          class="timeline-chart"
          viewBox={`0 0 ${width} ${height}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={t('channels.timeline', { duration: seconds(c.duration_seconds) })}
          style={{ height: `${height}px` }}
        >
          {(c.holds ?? []).map((s) => band(s, 'tl-hold', 0, height, t('channels.hold')))}
          {deadAir.map((s) => band(s, 'tl-dead-air', 0, height, t('channels.deadAirSpan')))}
          {rows.map((r, i) => r.spans.map((s) => band(s, r.cls, i * (row + gap) + gap / 2, row, r.label)))}
          {(c.overtalk ?? []).map((s) => band(s, 'tl-overtalk', row - 2, gap + 4, t('channels.overtalkSpan')))}
        </svg>
      </div>
      <p class="timeline-legend small muted" aria-hidden="true">
        {c.stereo && <span class="legend tl-agent">{t('channels.agent')}</span>}
        {c.stereo && <span class="legend tl-customer">{t('channels.customer')}</span>}
        {!c.stereo && <span class="legend tl-talk">{t('channels.talk')}</span>}
        {c.stereo && <span class="legend tl-overtalk">{t('channels.overtalkSpan')}</span>}
        <span class="legend tl-dead-air">{t('channels.deadAirSpan')}</span>
        {c.stereo && <span class="legend tl-hold">{t('channels.hold')}</span>}
        <span>0 s – {seconds(c.duration_seconds)}</span>
      </p>
      <dl class="facts">
        {facts.map(([id, label, value]) => (
          <div key={id}>
            <dt>{label}</dt>
            <dd data-testid={`channels-${id}`}>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
