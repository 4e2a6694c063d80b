// The flowhook protos with their comments, compiled once per run of the
// generators: the flow file reference and the engine API reference read the
// same descriptors.
import { createFileRegistry, type DescFile, type FileRegistry } from '@bufbuild/protobuf';
import {
  commentKey,
  commentsByName,
  compileWithComments,
  fileCommentKey,
  PROTO_ROOT,
  type CommentedElement,
} from '../../bin/cli/proto-comments.ts';
import { plainText } from './markdown.ts';

export interface CommentedProtos {
  registry: FileRegistry;
  /** The element's leading comment as Markdown, paragraphs separated by a blank line; '' when it has none. */
  comment(element: CommentedElement): string;
  /** The comment before the file's `package` line. */
  fileComment(file: DescFile): string;
}

let compiled: Promise<CommentedProtos> | undefined;

export function commentedProtos(): Promise<CommentedProtos> {
  compiled ??= compileWithComments([`${PROTO_ROOT}/flowhook`], { withImports: true }).then((set) => {
    const comments = commentsByName(set.file);
    const markdown = (key: string) => plainText(comments.get(key) ?? '');
    return {
      registry: createFileRegistry(set),
      comment: (element) => markdown(commentKey(element)),
      fileComment: (file) => markdown(fileCommentKey(file.proto.name)),
    };
  });
  return compiled;
}
