# runs in a thread with a big stack
import threading
threading.stack_size(1 << 26)
def main():
    n = int(input())
    for _ in range(n):
        a, b = map(int, input().split())
        print(a + b)

threading.Thread(target=main).start()
