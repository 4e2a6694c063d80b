// Checks a CSDL XML document (an OData `$metadata`) against the rules of
// "OData CSDL XML Representation Version 4.01" that apply to the constructs a
// service like ours uses: the edmx envelope and its Version, schemas, actions
// and functions with their parameters and return types, the entity container
// and its action and function imports, and which types a version may name (Edm.Untyped only from 4.01).
// Elements and attributes outside that vocabulary are reported rather than
// skipped, so a document using more of CSDL fails here instead of passing
// unchecked. No XSD validator ships with the project, hence these rules.
import { XMLParser, XMLValidator } from 'fast-xml-parser';

export const EDMX_NS = 'http://docs.oasis-open.org/odata/ns/edmx';
export const EDM_NS = 'http://docs.oasis-open.org/odata/ns/edm';

export interface XmlElement {
  ns: string | undefined;
  local: string;
  attributes: Record<string, string>;
  children: XmlElement[];
}

// Primitive types of CSDL 4.0 and 4.01 (§4.4 of the 4.01 XML representation).
const PRIMITIVE = new Set(
  [
    'Binary',
    'Boolean',
    'Byte',
    'Date',
    'DateTimeOffset',
    'Decimal',
    'Double',
    'Duration',
    'Guid',
    'Int16',
    'Int32',
    'Int64',
    'SByte',
    'Single',
    'Stream',
    'String',
    'TimeOfDay',
    'Geography',
    'GeographyPoint',
    'GeographyLineString',
    'GeographyPolygon',
    'GeographyMultiPoint',
    'GeographyMultiLineString',
    'GeographyMultiPolygon',
    'GeographyCollection',
    'Geometry',
    'GeometryPoint',
    'GeometryLineString',
    'GeometryPolygon',
    'GeometryMultiPoint',
    'GeometryMultiLineString',
    'GeometryMultiPolygon',
    'GeometryCollection',
  ].map((name) => `Edm.${name}`),
);
// Abstract types an operation may use; Edm.Untyped is new in 4.01. (The path types are for terms only.)
const ABSTRACT_4_0 = new Set(['Edm.PrimitiveType', 'Edm.ComplexType', 'Edm.EntityType']);
const ABSTRACT_4_01_ONLY = new Set(['Edm.Untyped']);

const SIMPLE_IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Cf}]{0,127}$/u;
const RESERVED_NAMESPACES = new Set(['Edm', 'odata', 'System', 'Transient']);
const BOOLEAN = new Set(['true', 'false']);
const FACETS = ['MaxLength', 'Precision', 'Scale', 'SRID'];

// The vocabulary checked here: allowed attributes and child elements per element.
const ELEMENTS: Record<string, { attributes: string[]; children: string[] }> = {
  Schema: {
    attributes: ['Namespace', 'Alias'],
    children: [
      'Action',
      'Annotation',
      'Annotations',
      'ComplexType',
      'EntityContainer',
      'EntityType',
      'EnumType',
      'Function',
      'Term',
      'TypeDefinition',
    ],
  },
  Action: { attributes: ['Name', 'IsBound', 'EntitySetPath'], children: ['Parameter', 'ReturnType', 'Annotation'] },
  Function: {
    attributes: ['Name', 'IsBound', 'IsComposable', 'EntitySetPath'],
    children: ['Parameter', 'ReturnType', 'Annotation'],
  },
  Parameter: { attributes: ['Name', 'Type', 'Nullable', ...FACETS], children: ['Annotation'] },
  ReturnType: { attributes: ['Type', 'Nullable', ...FACETS], children: ['Annotation'] },
  EntityContainer: {
    attributes: ['Name', 'Extends'],
    children: ['EntitySet', 'Singleton', 'ActionImport', 'FunctionImport', 'Annotation'],
  },
  ActionImport: { attributes: ['Name', 'Action', 'EntitySet'], children: ['Annotation'] },
  FunctionImport: {
    attributes: ['Name', 'Function', 'EntitySet', 'IncludeInServiceDocument'],
    children: ['Annotation'],
  },
};
// Schema children this checker knows to exist but does not look into: reported, so nothing passes unchecked.
const NOT_CHECKED = new Set([
  'Annotation',
  'Annotations',
  'ComplexType',
  'EntityType',
  'EnumType',
  'Term',
  'TypeDefinition',
  'EntitySet',
  'Singleton',
]);

/** Parses XML into elements with resolved namespaces; throws on XML that is not well-formed. */
export function parseXml(xml: string): XmlElement {
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw new Error(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    processEntities: true,
  });
  const nodes = parser.parse(xml) as OrderedNode[];
  const roots = nodes.filter((node) => elementName(node) !== undefined && !elementName(node)!.startsWith('?'));
  if (roots.length !== 1) throw new Error(`an XML document has one root element, found ${roots.length}`);
  return toElement(roots[0]!, new Map());
}

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

function elementName(node: OrderedNode): string | undefined {
  return Object.keys(node).find((key) => key !== ':@' && key !== '#text' && key !== '#comment');
}

function toElement(node: OrderedNode, scope: Map<string, string>): XmlElement {
  const name = elementName(node)!;
  const inScope = new Map(scope);
  const attributes: Record<string, string> = {};
  for (const [key, value] of Object.entries(node[':@'] ?? {})) {
    if (key === 'xmlns') inScope.set('', value);
    else if (key.startsWith('xmlns:')) inScope.set(key.slice(6), value);
    else attributes[key] = value;
  }
  const [prefix, local] = name.includes(':') ? (name.split(':', 2) as [string, string]) : ['', name];
  const children = (node[name] as OrderedNode[])
    .filter((child) => elementName(child) !== undefined)
    .map((child) => toElement(child, inScope));
  return { ns: inScope.get(prefix), local, attributes, children };
}

/** Every rule the document breaks, as readable sentences; empty when it conforms. */
export function checkCsdl(xml: string): string[] {
  let root: XmlElement;
  try {
    root = parseXml(xml);
  } catch (error) {
    return [(error as Error).message];
  }
  const problems: string[] = [];
  if (root.ns !== EDMX_NS || root.local !== 'Edmx')
    return [`the root element must be edmx:Edmx in ${EDMX_NS}, found ${root.local} in ${root.ns}`];
  const version = root.attributes.Version;
  if (version !== '4.0' && version !== '4.01') problems.push(`edmx:Edmx Version must be 4.0 or 4.01, found ${version}`);
  unexpectedAttributes(root, ['Version'], problems);

  const dataServices = root.children.filter((child) => child.ns === EDMX_NS && child.local === 'DataServices');
  const others = root.children.filter(
    (child) => !(child.ns === EDMX_NS && (child.local === 'DataServices' || child.local === 'Reference')),
  );
  if (dataServices.length !== 1)
    problems.push(`edmx:Edmx must contain exactly one edmx:DataServices, found ${dataServices.length}`);
  for (const other of others) problems.push(`unexpected element ${other.local} in edmx:Edmx`);
  if (root.children.some((child) => child.local === 'Reference'))
    problems.push('edmx:Reference is not checked by this checker');
  const schemas = dataServices[0]?.children ?? [];
  if (dataServices[0] && schemas.length === 0) problems.push('edmx:DataServices must contain at least one Schema');
  for (const schema of schemas) {
    if (schema.ns !== EDM_NS || schema.local !== 'Schema')
      problems.push(
        `edmx:DataServices may only contain Schema elements in ${EDM_NS}, found ${schema.local} in ${schema.ns}`,
      );
  }
  const model = new Model(
    schemas.filter((schema) => schema.ns === EDM_NS && schema.local === 'Schema'),
    version,
    problems,
  );
  model.check();
  return problems;
}

class Model {
  private readonly qualifiers = new Map<string, string>(); // namespace or alias → namespace
  private readonly unboundActions = new Map<string, XmlElement>(); // qualified name → action
  private readonly unboundFunctions = new Map<string, XmlElement[]>(); // qualified name → its overloads

  private readonly schemas: XmlElement[];
  private readonly version: string | undefined;
  private readonly problems: string[];

  constructor(schemas: XmlElement[], version: string | undefined, problems: string[]) {
    this.schemas = schemas;
    this.version = version;
    this.problems = problems;
  }

  check(): void {
    for (const schema of this.schemas) this.declareSchema(schema);
    for (const schema of this.schemas) {
      for (const action of this.childrenNamed(schema, 'Action')) this.declareAction(schema, action);
      for (const fn of this.childrenNamed(schema, 'Function')) this.declareFunction(schema, fn);
    }
    const containers = this.schemas.flatMap((schema) => this.childrenNamed(schema, 'EntityContainer'));
    if (containers.length > 1)
      this.problems.push(`a service has at most one EntityContainer, found ${containers.length}`);
    for (const schema of this.schemas) {
      this.checkElement(schema, 'Schema');
      for (const child of schema.children) {
        if (child.local === 'Action' || child.local === 'Function') this.checkOperation(child, child.local);
        else if (child.local === 'EntityContainer') this.checkContainer(child);
      }
    }
  }

  private declareSchema(schema: XmlElement): void {
    const namespace = schema.attributes.Namespace;
    if (!namespace || !namespace.split('.').every((part) => SIMPLE_IDENTIFIER.test(part)))
      this.problems.push(`Schema Namespace "${namespace}" is not a namespace (dot-separated simple identifiers)`);
    else if (RESERVED_NAMESPACES.has(namespace)) this.problems.push(`Schema Namespace "${namespace}" is reserved`);
    else if (this.qualifiers.has(namespace)) this.problems.push(`Schema Namespace "${namespace}" is declared twice`);
    else this.qualifiers.set(namespace, namespace);
    const alias = schema.attributes.Alias;
    if (alias !== undefined) {
      if (!SIMPLE_IDENTIFIER.test(alias) || RESERVED_NAMESPACES.has(alias) || this.qualifiers.has(alias))
        this.problems.push(`Schema Alias "${alias}" is not a free simple identifier`);
      else if (namespace) this.qualifiers.set(alias, namespace);
    }
  }

  private declareAction(schema: XmlElement, action: XmlElement): void {
    if (action.attributes.IsBound === 'true') return;
    const qualified = `${schema.attributes.Namespace}.${action.attributes.Name}`;
    // Unbound actions cannot be overloaded (CSDL 4.01 §12.1).
    if (this.unboundActions.has(qualified)) this.problems.push(`unbound action ${qualified} is declared twice`);
    this.unboundActions.set(qualified, action);
  }

  private declareFunction(schema: XmlElement, fn: XmlElement): void {
    if (fn.attributes.IsBound === 'true') return;
    const qualified = `${schema.attributes.Namespace}.${fn.attributes.Name}`;
    const parameterNames = (overload: XmlElement) =>
      this.childrenNamed(overload, 'Parameter')
        .map((p) => p.attributes.Name ?? '')
        .sort()
        .join(',');
    const overloads = this.unboundFunctions.get(qualified) ?? [];
    // Unbound function overloads must differ in their set of parameter names (CSDL 4.01 §12.2).
    if (overloads.some((other) => parameterNames(other) === parameterNames(fn)))
      this.problems.push(`unbound function ${qualified} is declared twice with the same parameter names`);
    this.unboundFunctions.set(qualified, [...overloads, fn]);
  }

  private checkOperation(action: XmlElement, kind: 'Action' | 'Function'): void {
    this.checkElement(action, kind);
    const name = this.requireIdentifier(action, kind);
    const bound = this.booleanAttribute(action, 'IsBound', `${kind} ${name}`);
    if (kind === 'Function') this.booleanAttribute(action, 'IsComposable', `Function ${name}`);
    if (action.attributes.EntitySetPath !== undefined && !bound)
      this.problems.push(
        `${kind} ${name}: EntitySetPath is only for bound ${kind === 'Action' ? 'actions' : 'functions'}`,
      );
    const parameters = this.childrenNamed(action, 'Parameter');
    if (bound && parameters.length === 0)
      this.problems.push(`${kind} ${name}: a bound ${kind.toLowerCase()} needs its binding parameter`);
    const seen = new Set<string>();
    for (const parameter of parameters) {
      this.checkElement(parameter, 'Parameter');
      const parameterName = this.requireIdentifier(parameter, `Parameter of ${name}`);
      if (seen.has(parameterName)) this.problems.push(`${kind} ${name}: parameter ${parameterName} is declared twice`);
      seen.add(parameterName);
      this.booleanAttribute(parameter, 'Nullable', `Parameter ${parameterName}`);
      this.checkTypeReference(parameter.attributes.Type, `Parameter ${parameterName} of ${name}`);
    }
    const returnTypes = this.childrenNamed(action, 'ReturnType');
    if (returnTypes.length > 1) this.problems.push(`${kind} ${name}: at most one ReturnType`);
    // A function always returns something (CSDL 4.01 §12.2); an action may return nothing.
    if (kind === 'Function' && returnTypes.length === 0)
      this.problems.push(`Function ${name}: a ReturnType is required`);
    for (const returnType of returnTypes) {
      this.checkElement(returnType, 'ReturnType');
      this.booleanAttribute(returnType, 'Nullable', `ReturnType of ${name}`);
      this.checkTypeReference(returnType.attributes.Type, `ReturnType of ${name}`);
    }
    // Parameters come first, then the return type (the XSD's sequence).
    const firstReturn = action.children.findIndex((child) => child.local === 'ReturnType');
    if (firstReturn >= 0 && action.children.slice(firstReturn).some((child) => child.local === 'Parameter'))
      this.problems.push(`${kind} ${name}: Parameter after ReturnType`);
  }

  private checkContainer(container: XmlElement): void {
    this.checkElement(container, 'EntityContainer');
    this.requireIdentifier(container, 'EntityContainer');
    const names = new Set<string>();
    for (const child of container.children) {
      const childName = child.attributes.Name ?? '';
      if (names.has(childName)) this.problems.push(`EntityContainer: ${childName} is declared twice`);
      names.add(childName);
      if (child.local === 'FunctionImport') {
        this.checkFunctionImport(child, childName);
        continue;
      }
      if (child.local !== 'ActionImport') continue;
      this.checkElement(child, 'ActionImport');
      this.requireIdentifier(child, 'ActionImport');
      const target = this.qualify(child.attributes.Action ?? '');
      if (!target || !this.unboundActions.has(target))
        this.problems.push(
          `ActionImport ${childName}: Action "${child.attributes.Action}" names no unbound action of the model`,
        );
      if (child.attributes.EntitySet !== undefined)
        this.problems.push(`ActionImport ${childName}: EntitySet is not checked by this checker`);
    }
  }

  private checkFunctionImport(child: XmlElement, childName: string): void {
    this.checkElement(child, 'FunctionImport');
    this.requireIdentifier(child, 'FunctionImport');
    const target = this.qualify(child.attributes.Function ?? '');
    if (!target || !this.unboundFunctions.has(target))
      this.problems.push(
        `FunctionImport ${childName}: Function "${child.attributes.Function}" names no unbound function of the model`,
      );
    this.booleanAttribute(child, 'IncludeInServiceDocument', `FunctionImport ${childName}`);
    if (child.attributes.EntitySet !== undefined)
      this.problems.push(`FunctionImport ${childName}: EntitySet is not checked by this checker`);
  }

  /** A type reference: a qualified type name, optionally wrapped in Collection(...). */
  private checkTypeReference(type: string | undefined, where: string): void {
    if (!type) {
      this.problems.push(`${where}: Type is required`);
      return;
    }
    const inner = /^Collection\((.+)\)$/.exec(type)?.[1] ?? type;
    if (PRIMITIVE.has(inner) || ABSTRACT_4_0.has(inner)) return;
    if (ABSTRACT_4_01_ONLY.has(inner)) {
      if (this.version !== '4.01')
        this.problems.push(`${where}: ${inner} exists only in CSDL 4.01, the document says Version ${this.version}`);
      return;
    }
    if (inner.startsWith('Edm.')) this.problems.push(`${where}: ${inner} is not a type of CSDL`);
    else this.problems.push(`${where}: type ${inner} is not defined (this checker knows only the built-in types)`);
  }

  private qualify(name: string): string | undefined {
    const dot = name.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const namespace = this.qualifiers.get(name.slice(0, dot));
    return namespace && `${namespace}.${name.slice(dot + 1)}`;
  }

  private childrenNamed(parent: XmlElement, local: string): XmlElement[] {
    return parent.children.filter((child) => child.ns === EDM_NS && child.local === local);
  }

  private checkElement(element: XmlElement, kind: keyof typeof ELEMENTS): void {
    const rules = ELEMENTS[kind]!;
    unexpectedAttributes(element, rules.attributes, this.problems);
    for (const child of element.children) {
      if (child.ns !== EDM_NS)
        this.problems.push(
          `${kind} ${element.attributes.Name ?? element.attributes.Namespace ?? ''}: element ${child.local} is not in the edm namespace`,
        );
      else if (!rules.children.includes(child.local)) this.problems.push(`${kind}: ${child.local} is not allowed here`);
      else if (NOT_CHECKED.has(child.local))
        this.problems.push(`${kind}: ${child.local} is not checked by this checker`);
    }
  }

  private requireIdentifier(element: XmlElement, where: string): string {
    const name = element.attributes.Name ?? '';
    if (!SIMPLE_IDENTIFIER.test(name)) this.problems.push(`${where}: Name "${name}" is not a simple identifier`);
    return name;
  }

  private booleanAttribute(element: XmlElement, attribute: string, where: string): boolean {
    const value = element.attributes[attribute];
    if (value !== undefined && !BOOLEAN.has(value))
      this.problems.push(`${where}: ${attribute} must be true or false, found "${value}"`);
    return value === 'true';
  }
}

function unexpectedAttributes(element: XmlElement, allowed: string[], problems: string[]): void {
  for (const attribute of Object.keys(element.attributes)) {
    if (!allowed.includes(attribute)) problems.push(`${element.local}: attribute ${attribute} is not allowed`);
  }
}

export interface OperationSignature {
  parameters: Array<{ name: string; type: string; nullable: boolean }>;
  returnType: string | undefined;
}

/** What a client generator reads for an action import: the imported action's parameters and return type. */
export function actionImportSignature(xml: string, importName: string): OperationSignature {
  return importSignature(xml, importName, 'Action');
}

/** The same for a function import (an unbound function without overloads, as ours). */
export function functionImportSignature(xml: string, importName: string): OperationSignature {
  return importSignature(xml, importName, 'Function');
}

function importSignature(xml: string, importName: string, kind: 'Action' | 'Function'): OperationSignature {
  const root = parseXml(xml);
  const schemas = root.children
    .flatMap((child) => child.children)
    .filter((child) => child.ns === EDM_NS && child.local === 'Schema');
  const operationImport = schemas
    .flatMap((schema) => schema.children.filter((child) => child.local === 'EntityContainer'))
    .flatMap((container) => container.children)
    .find((child) => child.local === `${kind}Import` && child.attributes.Name === importName);
  if (!operationImport) throw new Error(`no ${kind}Import ${importName} in the document`);
  const target = operationImport.attributes[kind] ?? '';
  const operation = schemas
    .flatMap((schema) =>
      schema.children
        .filter((child) => child.local === kind)
        .map((child) => ({ qualified: `${schema.attributes.Namespace}.${child.attributes.Name}`, child })),
    )
    .find((candidate) => candidate.qualified === target && candidate.child.attributes.IsBound !== 'true')?.child;
  if (!operation) throw new Error(`${kind}Import ${importName} names no unbound ${kind.toLowerCase()} (${target})`);
  return {
    parameters: operation.children
      .filter((child) => child.local === 'Parameter')
      .map((child) => ({
        name: child.attributes.Name ?? '',
        type: child.attributes.Type ?? '',
        nullable: child.attributes.Nullable !== 'false',
      })),
    returnType: operation.children.find((child) => child.local === 'ReturnType')?.attributes.Type,
  };
}
