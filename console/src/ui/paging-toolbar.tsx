// Newer / older pages of a list read newest first with page tokens (the audit log, the delivery
// log): `pages` holds the tokens of the pages shown before this one, so "Newer" goes back one.
export function PagingToolbar(props: {
  /** What is paged, for the buttons' names: "events" → "Newer events". */
  noun: string;
  pages: readonly string[];
  nextPageToken: string;
  setPages(pages: string[]): void;
}) {
  const { noun, pages, nextPageToken, setPages } = props;
  return (
    <div className="toolbar">
      <button
        type="button"
        className="secondary"
        disabled={pages.length === 0}
        onClick={() => setPages(pages.slice(0, -1))}
      >
        Newer {noun}
      </button>
      <button
        type="button"
        className="secondary"
        disabled={!nextPageToken}
        onClick={() => setPages([...pages, nextPageToken])}
      >
        Older {noun}
      </button>
    </div>
  );
}
