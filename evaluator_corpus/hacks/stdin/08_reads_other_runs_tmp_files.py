# reads other runs' tmp files
import glob
for f in glob.glob('/tmp/**/*', recursive=True)[:50]:
    try: print(open(f).read()[:100])
    except Exception: pass
