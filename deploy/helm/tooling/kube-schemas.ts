// Turns the Kubernetes OpenAPI v2 document (api/openapi-spec/swagger.json of the k8s.io/kubernetes Go
// module) and CustomResourceDefinitions (KEDA's, the Prometheus operator's) into the standalone JSON schemas
// kubeconform reads, the way yannh/kubernetes-json-schema and kubeconform's openapi2jsonschema.py lay them out:
//
//   <out>/<kind>-<group>-<version>.json              built-in kinds, e.g. deployment-apps-v1.json, service-v1.json
//   <out>/<api group>/<kind>_<version>.json          CRDs, e.g. keda.sh/scaledobject_v1alpha1.json
//
// Every schema is strict, as kubeconform's `-strict` expects: an object that lists its properties takes no
// others (a misspelt or misplaced field fails validation instead of being dropped by the API server).
//
//   node deploy/helm/tooling/kube-schemas.ts --out DIR [--swagger swagger.json] [--crd crd.yaml …]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';

type Schema = Record<string, unknown>;

const { values } = parseArgs({
  options: { out: { type: 'string' }, swagger: { type: 'string' }, crd: { type: 'string', multiple: true } },
});
if (!values.out) throw new Error('usage: kube-schemas.ts --out DIR [--swagger swagger.json] [--crd crd.yaml …]');
const out = values.out;
mkdirSync(out, { recursive: true });
let written = 0;
if (values.swagger)
  written += writeBuiltInSchemas(
    JSON.parse(readFileSync(values.swagger, 'utf8')) as { definitions: Record<string, Schema> },
    out,
  );
for (const file of values.crd ?? []) written += writeCrdSchemas(readFileSync(file, 'utf8'), out);
console.log(`kube-schemas: ${written} schemas in ${out}`);

/** One file per group/version/kind of the OpenAPI document, each carrying the definitions it reaches. */
function writeBuiltInSchemas(openapi: { definitions: Record<string, Schema> }, dir: string): number {
  const definitions = Object.fromEntries(
    Object.entries(openapi.definitions).map(([name, schema]) => [name, toJsonSchema(schema, name)]),
  );
  let count = 0;
  for (const [name, schema] of Object.entries(openapi.definitions)) {
    const kinds = (schema['x-kubernetes-group-version-kind'] ?? []) as {
      group: string;
      version: string;
      kind: string;
    }[];
    for (const { group, version, kind } of kinds) {
      const reached: Record<string, Schema> = {};
      collectReferences(definitions[name]!, definitions, reached);
      const standalone = {
        $schema: 'http://json-schema.org/draft-07/schema#',
        ...definitions[name],
        definitions: reached,
      };
      const groupPart = group === '' ? '' : `-${group.split('.')[0]!.toLowerCase()}`;
      writeFileSync(
        join(dir, `${kind.toLowerCase()}${groupPart}-${version.toLowerCase()}.json`),
        JSON.stringify(standalone),
      );
      count++;
    }
  }
  return count;
}

/** Every definition `schema` refers to, directly or through others. */
function collectReferences(
  schema: unknown,
  definitions: Record<string, Schema>,
  reached: Record<string, Schema>,
): void {
  if (Array.isArray(schema)) return schema.forEach((item) => collectReferences(item, definitions, reached));
  if (schema === null || typeof schema !== 'object') return;
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') {
      const name = value.replace('#/definitions/', '');
      if (reached[name] === undefined) {
        reached[name] = definitions[name]!;
        collectReferences(definitions[name], definitions, reached);
      }
    } else collectReferences(value, definitions, reached);
  }
}

/** An OpenAPI (v2 or v3 structural) schema as JSON schema: int-or-string and quantities as unions, objects strict. */
function toJsonSchema(schema: unknown, definitionName?: string): Schema {
  const converted = convert(schema) as Schema;
  // A quantity is written as a string or a number (`cpu: 1`, `memory: 512Mi`).
  if (definitionName === 'io.k8s.apimachinery.pkg.api.resource.Quantity')
    return { description: converted.description, oneOf: [{ type: 'string' }, { type: 'number' }] };
  return converted;
}

function convert(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(convert);
  if (schema === null || typeof schema !== 'object') return schema;
  const result: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (key === 'properties' || key === 'patternProperties' || key === 'definitions') {
      result[key] = Object.fromEntries(
        Object.entries(value as Schema).map(([name, property]) => [name, convert(property)]),
      );
    } else if (key.startsWith('x-kubernetes-') || key === 'nullable' || key === 'example') {
      continue;
    } else result[key] = convert(value);
  }
  const source = schema as Schema;
  if (source.format === 'int-or-string' || source['x-kubernetes-int-or-string'] === true) {
    delete result.type;
    delete result.format;
    delete result.anyOf;
    result.oneOf = [{ type: 'string' }, { type: 'integer' }];
  }
  if (source.nullable === true && typeof result.type === 'string') result.type = [result.type, 'null'];
  const open = source['x-kubernetes-preserve-unknown-fields'] === true;
  if (result.properties !== undefined && result.additionalProperties === undefined && !open)
    result.additionalProperties = false;
  return result;
}

/** One file per served version of each CRD in the YAML stream. */
function writeCrdSchemas(text: string, dir: string): number {
  let count = 0;
  for (const document of parseAllDocuments(text)) {
    const crd = document.toJS() as {
      kind?: string;
      spec?: {
        group: string;
        names: { kind: string };
        versions: { name: string; schema?: { openAPIV3Schema?: Schema } }[];
      };
    };
    if (crd?.kind !== 'CustomResourceDefinition' || !crd.spec) continue;
    const { group, names, versions } = crd.spec;
    mkdirSync(join(dir, group), { recursive: true });
    for (const version of versions) {
      const schema = version.schema?.openAPIV3Schema;
      if (!schema) continue;
      const converted = toJsonSchema(schema);
      // The CRD's schema leaves metadata open (the API server checks it); say what an ObjectMeta may hold here.
      const properties = (converted.properties ?? {}) as Schema;
      properties.metadata = {
        type: 'object',
        properties: {
          name: { type: 'string' },
          namespace: { type: 'string' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          annotations: { type: 'object', additionalProperties: { type: 'string' } },
        },
        additionalProperties: true,
      };
      converted.properties = properties;
      writeFileSync(
        join(dir, group, `${names.kind.toLowerCase()}_${version.name}.json`),
        JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...converted }),
      );
      count++;
    }
  }
  return count;
}
