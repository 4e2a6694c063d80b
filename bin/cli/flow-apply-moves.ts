// What applying a flow file would move for callers who reach the published
// version today: a new activity (calls to the old one answer 404), or a
// provider route that goes away while a hook secret is set for it (the
// sender's posts answer 404 and the secret stays behind, unused). Two example
// files that shared a flow name once moved a flow this way with no more than
// "updated — version 2": such an apply now needs --yes, or a yes on a
// terminal, after these lines say what changes. Pure.
import type { Flow } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { GetFlowResponse } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { shellArg } from './output.ts';

/** The published version as the engine describes it (GetFlow with the published version number). */
export type PublishedFlow = Pick<GetFlowResponse, 'definition' | 'providerRoute'>;

/** One line per change a caller would notice; empty when the apply moves nothing. */
export function movesOf(published: PublishedFlow, next: Flow): string[] {
  const before =
    published.definition?.trigger?.kind.case === 'webhook' ? published.definition.trigger.kind.value : undefined;
  const after = next.trigger?.kind.case === 'webhook' ? next.trigger.kind.value : undefined;
  if (!before) return [];
  const company = published.definition!.company;
  const oldActivity = before.activity.toLowerCase();
  const newActivity = (after?.activity ?? '').toLowerCase();
  const moves: string[] = [];
  if (newActivity !== oldActivity) {
    moves.push(
      `its activity changes from ${oldActivity} to ${newActivity}: calls for ${oldActivity} will answer 404 (no flow has that activity)`,
    );
  }
  const route = published.providerRoute;
  const routeStays = newActivity === oldActivity && after?.direct !== undefined;
  if (before.direct !== undefined && route?.hookSecretSet && !routeStays) {
    moves.push(
      `its provider route ${route.url} goes away: the sender's posts will answer 404, and the hook secret set for ${oldActivity} stays stored, unused ` +
        `(delete it with: flowhook hook-secret delete ${shellArg(company)} ${shellArg(oldActivity)} --yes)`,
    );
  }
  return moves;
}
