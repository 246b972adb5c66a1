// formbridge: lays out a hidden sample form while the widget's program
// downloads and compiles. A tab's first layout of form controls is slow
// (fonts, the controls' inner parts, style caches: 25 to 60 ms on a
// fresh tab of a small machine), and the widget would otherwise pay it
// when it focuses the first field of the first form, with the person
// waiting. Done here, while the page waits for the wasm, it leaves the
// real form's layout about a third of that.
//
// The sample is never painted or announced: it is hidden, inert and out
// of the accessibility tree, and removed in the same task that adds it.
(() => {
  "use strict";
  const field = (control) =>
    `<div class="fb-field"><label class="fb-label"><bdi>Aa</bdi></label><p class="fb-hint">Aa</p>${control}</div>`;
  const sample =
    '<main class="fb-main"><div class="fb-content"><form class="fb-card"><header class="fb-card-head">' +
    '<p class="fb-asks">Aa</p><h2 class="fb-title"><bdi>Aa</bdi></h2><p class="fb-message">Aa</p></header><fieldset class="fb-lock"><div class="fb-fields">' +
    '<div class="fb-field fb-check"><div class="fb-check-row"><input type="checkbox"><label class="fb-label"><bdi>Aa</bdi></label></div></div>' +
    field('<input type="text" class="fb-input">') +
    field('<textarea class="fb-input"></textarea>') +
    field('<input type="text" inputmode="numeric" class="fb-input fb-number">') +
    field('<select class="fb-input"><option>Aa</option></select>') +
    '<fieldset class="fb-field"><legend class="fb-label">Aa</legend><div class="fb-options">' +
    '<label class="fb-option"><input type="radio"> Aa</label><label class="fb-option"><input type="checkbox"> Aa</label></div></fieldset>' +
    '</div></fieldset><div class="fb-actions"><button class="fb-primary" type="button">Aa</button><button type="button">Aa</button></div></form></div></main>';

  const warm = () => {
    // Too late to help: the widget has laid out a form of its own.
    if (!document.body || document.querySelector("form[data-elicitation-id]")) return;
    const box = document.createElement("div");
    box.className = "fb-widget";
    box.inert = true;
    box.setAttribute("aria-hidden", "true");
    box.style.cssText = "position:absolute;left:-10000px;top:0;width:40rem;visibility:hidden";
    box.innerHTML = sample;
    document.body.appendChild(box);
    void box.offsetHeight; // the layout this script is for
    box.remove();
  };

  // Right after the parse: go-app's loader (an earlier deferred script)
  // has asked for the wasm, which takes far longer to arrive and compile.
  // Not requestIdleCallback: while the loader streams the wasm the page
  // seldom looks idle, and its timeout fell about when the wasm starts.
  const later = () => setTimeout(warm, 0);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", later, { once: true });
  else later();
})();
