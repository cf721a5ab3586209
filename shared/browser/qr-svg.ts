import { encode } from 'uqr';
import { html, type SafeHtml } from '../html/html.ts';

/** ISO/IEC 18004 asks for a quiet zone of 4 modules around the symbol. */
const QUIET_ZONE = 4;

/**
 * A QR code of `text` as inline SVG, for an authenticator app to scan (the enrolment page only:
 * the pages function is the one bundle that carries the encoder, `uqr`). The markup is ours, not
 * the library's: one `<path>` of unit squares built from the module matrix, so nothing of `text`
 * appears in it and nothing in it needs a style (the pages' CSP allows no inline style but the
 * page's own). Error correction M (15 %), enough for a screen.
 */
export function qrSvg(text: string, label: string): SafeHtml {
  const { size, data } = encode(text, { ecc: 'M', border: QUIET_ZONE });
  let d = '';
  data.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`;
    });
  });
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" width="240" height="240" role="img" aria-label="${label}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`;
}
