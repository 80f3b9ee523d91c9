/**
 * Pigeon's icon (the dashboard's `web/public/favicon.svg`) for the pages the server renders itself
 * (unsubscribe and manage pages, "dashboard not built"). It is inlined as a `data:` URL so those pages
 * need no extra request and work without the dashboard's bundle; their Content-Security-Policy must
 * allow `img-src data:` for a browser to use it.
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4263eb"/>' +
  '<path d="M7 20c3-1 5-4 6-7 2 2 5 3 8 2l4-4-1 6c-1 4-5 7-10 7H7z" fill="#fff"/>' +
  '<circle cx="21" cy="11" r="1.3" fill="#4263eb"/></svg>';

/** The `<link rel="icon">` tag of {@link FAVICON_SVG}, for a page's `<head>`. */
export const FAVICON_LINK = `<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}">`;
