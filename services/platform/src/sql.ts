/** Escapes LIKE wildcards so user text matches literally (used with ESCAPE '\'). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface PageRequest {
  page: number;
  pageSize: number;
}

/** LIMIT and OFFSET of a page (page starts at 1). */
export function pageBounds({ page, pageSize }: PageRequest): { limit: number; offset: number } {
  return { limit: pageSize, offset: (page - 1) * pageSize };
}
