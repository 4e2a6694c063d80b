// A flow's stored versions (drafts and published), newest first, and any two
// of them compared side by side (CodeMirror's merge view over their YAML).
// A version can be loaded into the card to continue from it.
import { lazy, Suspense, useEffect, useState } from 'react';
import { toJson } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { skipToken } from '@tanstack/react-query';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { FlowSchema, type FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { SelectField } from '../ui/field.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';
import { toYaml } from '../yaml/flow-yaml.ts';

const VersionDiff = lazy(() => import('./version-diff.tsx'));

export default function VersionsTab({
  company,
  name,
  onLoad,
  readOnly,
}: {
  company: string;
  name: string;
  onLoad(flow: FlowJson, version: number): void;
  readOnly: boolean;
}) {
  const versions = useQuery(FlowAdminService.method.listFlowVersions, { company, name });
  const list = versions.data?.versions ?? [];
  const [left, setLeft] = useState<number>();
  const [right, setRight] = useState<number>();
  const older = left ?? list[1]?.version ?? list[0]?.version;
  const newer = right ?? list[0]?.version;
  const a = useQuery(FlowAdminService.method.getFlow, older ? { company, name, version: older } : skipToken);
  const b = useQuery(FlowAdminService.method.getFlow, newer ? { company, name, version: newer } : skipToken);
  if (versions.isPending) return <Loading what="the versions" />;
  if (versions.isError) return <LoadProblem what="the versions" error={versions.error} />;
  const options = list.map((version) => (
    <option key={version.version} value={version.version}>
      v{version.version}
    </option>
  ));
  const yamlOf = (definition: typeof a.data) =>
    definition?.definition ? toYaml(toJson(FlowSchema, definition.definition) as FlowJson) : undefined;
  return (
    <div className="versions">
      <table>
        <caption>Stored versions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Saved</th>
            <th scope="col">Activity</th>
            <th scope="col">Description</th>
            <th scope="col">State</th>
            {readOnly ? null : <th scope="col">Continue from it</th>}
          </tr>
        </thead>
        <tbody>
          {list.map((version) => (
            <tr key={version.version}>
              <th scope="row">v{version.version}</th>
              <td>{version.createdAt ? timestampDate(version.createdAt).toLocaleString() : ''}</td>
              <td>
                <code>{version.activity}</code>
              </td>
              <td>{version.description || '—'}</td>
              <td>{version.published ? 'published' : 'draft'}</td>
              {readOnly ? null : (
                <td>
                  <LoadButton company={company} name={name} version={version.version} onLoad={onLoad} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {list.length > 1 ? (
        <section aria-labelledby="compare-title">
          <h2 id="compare-title">Compare two versions</h2>
          <div className="compare-pickers">
            <SelectField
              label="Compare version"
              value={older}
              onChange={(event) => setLeft(Number(event.target.value))}
            >
              {options}
            </SelectField>
            <SelectField label="with version" value={newer} onChange={(event) => setRight(Number(event.target.value))}>
              {options}
            </SelectField>
          </div>
          {yamlOf(a.data) !== undefined && yamlOf(b.data) !== undefined ? (
            <Suspense fallback={<Loading what="the comparison" />}>
              <VersionDiff
                left={yamlOf(a.data)!}
                right={yamlOf(b.data)!}
                leftLabel={`v${older}`}
                rightLabel={`v${newer}`}
              />
            </Suspense>
          ) : (
            <Loading what="the two versions" />
          )}
        </section>
      ) : (
        <p>One version so far: save a draft to have two to compare.</p>
      )}
    </div>
  );
}

function LoadButton({
  company,
  name,
  version,
  onLoad,
}: {
  company: string;
  name: string;
  version: number;
  onLoad(flow: FlowJson, version: number): void;
}) {
  const [wanted, setWanted] = useState(false);
  const flow = useQuery(FlowAdminService.method.getFlow, wanted ? { company, name, version } : skipToken);
  useEffect(() => {
    if (!wanted || !flow.data?.definition) return;
    setWanted(false);
    onLoad(toJson(FlowSchema, flow.data.definition) as FlowJson, version);
  }, [wanted, flow.data]);
  return (
    <button
      type="button"
      className="secondary small"
      onClick={() => setWanted(true)}
      disabled={wanted && flow.isPending}
    >
      Load v{version} into the card
    </button>
  );
}
