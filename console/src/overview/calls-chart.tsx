// Calls per minute over the last hour as stacked bars, one colour per outcome
// (the table under it has the same numbers for screen readers and keyboards;
// each bar's title tells its minute). SVG attributes only: the
// Content-Security-Policy allows no inline styles.
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { CallMinute } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';

export const OUTCOME_LABELS: Record<string, string> = {
  responded: 'Responded',
  instant_return: 'Instant return',
  flow_ended: 'Flow ended',
  sync_timeout: 'Sync timeout',
  refused: 'Refused (4xx)',
  failed: 'Failed (5xx)',
};

const WIDTH = 1200;
const HEIGHT = 160;
const BAR_GAP = 2;

export function CallsChart({ minutes }: { minutes: CallMinute[] }) {
  const counts = minutes.map((minute) =>
    Object.fromEntries(minute.counts.map(({ outcome, count }) => [outcome, Number(count)])),
  );
  const most = Math.max(
    1,
    ...counts.map((byOutcome) => Object.values(byOutcome).reduce((sum, count) => sum + count, 0)),
  );
  const barWidth = WIDTH / Math.max(1, minutes.length);
  const total = counts.reduce((sum, byOutcome) => sum + Object.values(byOutcome).reduce((a, b) => a + b, 0), 0);
  return (
    <figure className="calls-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT + 20}`}
        role="img"
        aria-label={`Calls per minute over the last hour: ${total} in all, at most ${most === 1 && total === 0 ? 0 : most} in one minute`}
      >
        <line x1="0" x2={WIDTH} y1={HEIGHT} y2={HEIGHT} className="axis" />
        {minutes.map((minute, index) => {
          let top = HEIGHT;
          const when = minute.minute ? timestampDate(minute.minute) : undefined;
          return (
            <g key={index}>
              <title>
                {when ? when.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : ''}:{' '}
                {Object.entries(OUTCOME_LABELS)
                  .map(([outcome, label]) => `${counts[index]![outcome] ?? 0} ${label.toLowerCase()}`)
                  .join(', ')}
              </title>
              {Object.keys(OUTCOME_LABELS).map((outcome) => {
                const count = counts[index]![outcome] ?? 0;
                if (count === 0) return null;
                const height = (count / most) * (HEIGHT - 10);
                top -= height;
                return (
                  <rect
                    key={outcome}
                    x={index * barWidth + BAR_GAP / 2}
                    y={top}
                    width={barWidth - BAR_GAP}
                    height={height}
                    className={`outcome-${outcome}`}
                  />
                );
              })}
            </g>
          );
        })}
        <text x="0" y={HEIGHT + 16} className="axis-label">
          an hour ago
        </text>
        <text x={WIDTH} y={HEIGHT + 16} textAnchor="end" className="axis-label">
          now
        </text>
      </svg>
    </figure>
  );
}
