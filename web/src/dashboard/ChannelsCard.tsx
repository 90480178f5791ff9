import { formatScore, t, type MessageKey } from '../i18n';
import { Link } from '../router';
import type { ChannelFigures, Dashboard } from '../types';
import { FiguresTable } from './ChartCard';

const percent = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${formatScore(x * 100)} %`);
const seconds = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${formatScore(x)} s`);

/** Figure is one figure of what the channels tell: its label, value and the task list of the calls behind it (narrowed so). */
export interface Figure {
  label: MessageKey;
  value: string;
  narrow: Record<string, string>;
  /** title: the link's words when they say more than the figure (which calls it lists). */
  title?: MessageKey;
  testid: string;
}

/** channelFigures are the figures of what the channels of some calls tell, in the order the dashboard and the reports show them. */
export function channelFigures(c: ChannelFigures): Figure[] {
  return [
    { label: 'dash.channelsCalls', value: String(c.calls), narrow: { min_silence_share: '0' }, testid: 'dash-channels-calls' },
    {
      label: 'dash.talkRatio',
      value: percent(c.average_agent_talk_ratio),
      narrow: { min_agent_talk_ratio: '0.7' },
      title: 'dash.talkRatioLink',
      testid: 'dash-channels-talk',
    },
    {
      label: 'dash.silenceShare',
      value: percent(c.average_silence_share),
      narrow: { min_silence_share: '0.3' },
      title: 'dash.silenceLink',
      testid: 'dash-channels-silence',
    },
    {
      label: 'dash.deadAirCalls',
      value: t('dash.callsOf', { n: c.dead_air_calls, share: percent(c.dead_air_share) }),
      narrow: { min_dead_air: '1' },
      testid: 'dash-channels-dead-air',
    },
    {
      label: 'dash.holdCalls',
      value: t('dash.callsOf', { n: c.hold_calls, share: percent(c.hold_share) }),
      narrow: { min_holds: '1' },
      testid: 'dash-channels-holds',
    },
    {
      label: 'dash.overtalkPerCall',
      value:
        c.overtalk_per_call === null
          ? '—'
          : t('dash.overtalkOf', { n: formatScore(c.overtalk_per_call), seconds: formatScore(c.overtalk_seconds_per_call ?? 0) }),
      narrow: { min_overtalk: '1' },
      testid: 'dash-channels-overtalk',
    },
    {
      label: 'dash.longestSilence',
      value: seconds(c.longest_silence_seconds),
      // The calls with the longest silence: at least its whole seconds.
      narrow: { min_longest_silence: String(Math.floor(c.longest_silence_seconds ?? 0)) },
      testid: 'dash-channels-longest',
    },
  ];
}

/**
 * ChannelsCard shows what the channels of the dashboard's calls tell, each figure a link to the task list of the
 * calls behind it (link gives the list of the dashboard's period and filters, narrowed), and the talk and silence of
 * the ranking's agents.
 */
export function ChannelsCard({ c, link }: { c: Dashboard['channels']; link: (narrow: Record<string, string>) => string }) {
  const figures = channelFigures(c);
  return (
    <section class="card" aria-labelledby="dash-channels-title" data-testid="dash-channels">
      <h2 id="dash-channels-title">{t('dash.channels')}</h2>
      {c.calls === 0 ? (
        <p class="muted">{t('dash.channelsNone')}</p>
      ) : (
        <>
          <p class="muted small">{t('dash.channelsOf', { calls: c.calls, stereo: c.stereo_calls })}</p>
          <dl class="facts">
            {figures.map((f) => (
              <div key={f.label} data-testid={f.testid}>
                <dt>{t(f.label)}</dt>
                <dd>
                  <Link href={link(f.narrow)} title={f.title && t(f.title)}>
                    {f.value}
                  </Link>
                </dd>
              </div>
            ))}
          </dl>
          {(c.agents ?? []).length > 0 && (
            <>
              <h3>{t('dash.agentChannels')}</h3>
              <FiguresTable
                head={[t('tasks.operator'), t('dash.channelsCalls'), t('dash.talkRatio'), t('dash.silenceShare')]}
                rows={(c.agents ?? []).map((a) => [
                  { text: a.operator_id, href: link({ operator: a.operator_id, min_silence_share: '0' }) },
                  a.calls,
                  percent(a.average_agent_talk_ratio),
                  percent(a.average_silence_share),
                ])}
              />
            </>
          )}
        </>
      )}
    </section>
  );
}
