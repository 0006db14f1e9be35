# sleeps past the limit
n, m = map(int, input().split())
import time
time.sleep(30)
