// Bounds on `$toMillis(timestamp, picture)`. JSONata parses a timestamp with a
// picture by building one JavaScript regular expression from the picture's
// markers and running it on the timestamp, which is payload data. Markers
// whose text cannot be told apart where they meet (two names, a number in
// words next to a name: `[MNn][FNn]`, `[Yw] [MNn]`) make that expression
// backtrack over every way to split the text, polynomially with a degree that
// grows with each such marker; numeric markers are safe (JSONata gives
// adjacent ones fixed widths). So the timestamp is refused beyond the length
// no real timestamp reaches, and pictures whose markers cannot be told apart
// are refused whole: JSONata cannot parse them correctly anyway.

/** Longest timestamp `$toMillis` parses with a picture (a date and time written out in words fits). */
export const MAX_PICTURE_TIMESTAMP_LENGTH = 100;

/** Components whose default presentation is a name (XPath F&O 9.8.4.2). */
const NAMED_BY_DEFAULT = new Set(['F', 'P', 'C', 'E']);

/** What a formula may not ask `$toMillis` to parse, or undefined when it may. Never quotes the timestamp. */
export function pictureParseProblem(timestamp: string, picture: string): string | undefined {
  if (timestamp.length > MAX_PICTURE_TIMESTAMP_LENGTH) {
    return `$toMillis parses timestamps of at most ${MAX_PICTURE_TIMESTAMP_LENGTH} characters with a picture (this one has ${timestamp.length})`;
  }
  let previous: Marker | undefined;
  let between = '';
  for (const part of pictureParts(picture)) {
    if (typeof part === 'string') {
      between += part;
      continue;
    }
    if (previous && part.kind !== 'number' && previous.kind !== 'number' && runTogether(previous, between)) {
      // The picture may come from the payload: not quoted.
      return '$toMillis cannot parse with this picture: two of its markers are names or words with nothing that tells them apart (put a separator between them)';
    }
    previous = part;
    between = '';
  }
  return undefined;
}

interface Marker {
  kind: 'number' | 'name' | 'words';
}

/** Whether the text between two markers leaves their boundary open: nothing, or (after words) only what words may contain. */
function runTogether(first: Marker, between: string): boolean {
  if (between === '') return true;
  return first.kind === 'words' && /^(?:[\s,-]|and)*$/i.test(between);
}

/** The picture as literal text and markers; `[[` and `]]` are literal brackets. */
function* pictureParts(picture: string): Generator<string | Marker> {
  let i = 0;
  while (i < picture.length) {
    const open = picture.indexOf('[', i);
    if (open === -1) {
      yield picture.slice(i).replaceAll(']]', ']');
      return;
    }
    if (picture[open + 1] === '[') {
      yield `${picture.slice(i, open)}[`;
      i = open + 2;
      continue;
    }
    yield picture.slice(i, open).replaceAll(']]', ']');
    const close = picture.indexOf(']', open);
    if (close === -1) return; // JSONata refuses the picture itself
    yield { kind: markerKind(picture.slice(open + 1, close)) };
    i = close + 1;
  }
}

function markerKind(text: string): Marker['kind'] {
  const marker = text.replace(/\s/g, '');
  const presentation = marker.slice(1).split(',')[0]!;
  if (/[Ww]/.test(presentation)) return 'words';
  // Names, roman numerals and alphabetic numbering are all runs of letters.
  if (/[NnIiAa]/.test(presentation) || (presentation === '' && NAMED_BY_DEFAULT.has(marker[0]!))) return 'name';
  return 'number';
}
