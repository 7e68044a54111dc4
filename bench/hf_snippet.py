"""The download loop the Hugging Face conceptual_captions dataset card suggests, written out so it runs
without the `datasets` package: urllib with a user agent, the whole body read, PIL.Image.open (lazy, no
decode), None on any error, 20 threads over batches of 100 URLs (the card's batched map), no shards
written. Used by bench/download.ts as the baseline.

  /usr/bin/python3 bench/hf_snippet.py LIST.tsv   (url<TAB>caption) → one JSON line
"""
import io
import json
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import PIL.Image

USER_AGENT = "datasets/2.14.0; python/3.11"


def fetch_single_image(url, timeout=None, retries=0):
    image = None
    for _ in range(retries + 1):
        try:
            request = urllib.request.Request(url, data=None, headers={"user-agent": USER_AGENT})
            with urllib.request.urlopen(request, timeout=timeout) as response:
                image = PIL.Image.open(io.BytesIO(response.read()))
            break
        except Exception:  # the card's loop swallows every error
            image = None
    return image


def main():
    urls = [line.split("\t", 1)[0] for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
    start = time.time()
    ok = 0
    with ThreadPoolExecutor(max_workers=20) as pool:
        for i in range(0, len(urls), 100):
            # each batch of 100 ends before the next starts, as a batched map does
            images = list(pool.map(fetch_single_image, urls[i : i + 100]))
            ok += sum(image is not None for image in images)
    seconds = time.time() - start
    print(json.dumps({"rows": len(urls), "successes": ok, "seconds": seconds, "rate": len(urls) / seconds}))


main()
