# runs in a thread with a big stack
import threading
threading.stack_size(1 << 26)
def main():
    n, m = map(int, input().split())
    for i in range(1, n + 1):
        print(*[i * j for j in range(1, m + 1)])

threading.Thread(target=main).start()
