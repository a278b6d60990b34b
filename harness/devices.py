"""Screen sizes for the browser tests: a phone's or tablet's context options, and the check
that nothing but a labelled .scroll-x region reaches past the right edge."""

from __future__ import annotations

from typing import Any


def device(width: int, height: int) -> dict[str, Any]:
    """Context options for a screen of this size: a touch screen, as on phones and tablets, below 1024 px."""
    touch = width < 1024
    return {"viewport": {"width": width, "height": height}, "has_touch": touch, "is_mobile": touch}


# Every element past the right edge of the viewport outside a .scroll-x region, described.
OVERFLOW = """() => {
  const vw = window.innerWidth;
  const describe = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    else if (typeof el.className === 'string' && el.className.trim()) s += '.' + el.className.trim().split(/\\s+/).join('.');
    const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
    return text ? `${s} "${text}"` : s;
  };
  const offenders = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('.scroll-x')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.right > vw + 0.5) offenders.push({element: describe(el), right: Math.round(r.right), width: Math.round(r.width)});
  }
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: vw, offenders};
}"""
