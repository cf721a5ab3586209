import { describe, expect, it } from 'vitest';
import { csrfToken, isValidCsrfToken } from '#shared/html/csrf.ts';
import { escapeHtml, html, trusted } from '#shared/html/html.ts';
import { errorPage, htmlPage, pageCsp } from '#shared/html/page.ts';

describe('html tagged template (shared/html/html.ts)', () => {
  it('escapes every interpolation: text and quoted attribute breakouts', () => {
    const evil = `<script>alert('x')</script>" onload="x\` &amp;`;
    expect(html`<p title="${evil}">${evil}</p>`.toString()).toBe(
      '<p title="&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot; onload=&quot;x&#96; &amp;amp;">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot; onload=&quot;x&#96; &amp;amp;</p>',
    );
  });

  it('lets through only trusted markup and nested fragments; arrays render each item; null/undefined/false render nothing', () => {
    const items = ['<a>', 'b'].map((s) => html`<li>${s}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}${trusted('<hr>')}`.toString()).toBe(
      '<ul><li>&lt;a&gt;</li><li>b</li></ul>0<hr>',
    );
    // A string that looks like a fragment is still text.
    expect(html`${'<b>x</b>'}`.toString()).toBe('&lt;b&gt;x&lt;/b&gt;');
    expect(escapeHtml('&<>"\'`')).toBe('&amp;&lt;&gt;&quot;&#39;&#96;');
  });

  it('a page escapes its title, carries the page CSP, no-store and HTML content type', () => {
    const page = htmlPage({ title: '<x>', body: html`<p>ok</p>`, formActions: ['https://app.example.com'] });
    expect(page.body).toContain('<title>&lt;x&gt;</title>');
    expect(page.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(page.headers['Cache-Control']).toBe('no-store');
    expect(page.headers['Content-Security-Policy']).toBe(pageCsp(['https://app.example.com']));
    expect(pageCsp()).toMatch(
      /^default-src 'none'; style-src 'sha256-[^']+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    expect(page.body).not.toMatch(/<script/i);
    const err = errorPage(404, 'Gone', '<img src=x>', { 'Retry-After': '1' });
    expect(err.statusCode).toBe(404);
    expect(err.headers['Retry-After']).toBe('1');
    expect(err.body).toContain('&lt;img src=x&gt;');
  });
});

describe('CSRF tokens (shared/html/csrf.ts)', () => {
  const key = Buffer.alloc(32, 7);
  it('bound to key, purpose and binding; anything else is refused', () => {
    const token = csrfToken(key, 'ticket', 'abc');
    expect(isValidCsrfToken(key, 'ticket', 'abc', token)).toBe(true);
    expect(isValidCsrfToken(key, 'ticket', 'abd', token)).toBe(false);
    expect(isValidCsrfToken(key, 'login', 'abc', token)).toBe(false);
    expect(isValidCsrfToken(Buffer.alloc(32, 8), 'ticket', 'abc', token)).toBe(false);
    for (const bad of [undefined, '', token.slice(1), `${token}x`, ['x'], 42])
      expect(isValidCsrfToken(key, 'ticket', 'abc', bad)).toBe(false);
  });
});
