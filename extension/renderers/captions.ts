/**
 * Notebook renderer for `application/vnd.cckit.captions+json` (what `show.captions` publishes): a grid of
 * cards with the image thumbnail, the predicted caption (words shared with the references highlighted),
 * domain, per-image CIDEr and the references. Images arrive as `data:` URIs (the controller inlines
 * workspace files); nothing else is loaded. In an untrusted workspace images are not shown.
 */
import type { ActivationFunction, OutputItem } from 'vscode-notebook-renderer';
import { CAPTIONS_STYLE, renderCaptions, type CaptionsPayload } from '../src/captionsHtml';

export const activate: ActivationFunction = (ctx) => ({
  renderOutputItem(item: OutputItem, element: HTMLElement) {
    const payload = item.json() as CaptionsPayload;
    const style = document.createElement('style');
    style.textContent = CAPTIONS_STYLE;
    const root = document.createElement('div');
    root.innerHTML = renderCaptions(payload, ctx.workspace.isTrusted);
    element.replaceChildren(style, ...Array.from(root.childNodes));
  },
});
