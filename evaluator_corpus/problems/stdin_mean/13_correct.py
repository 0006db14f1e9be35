# runs in a thread with a big stack
import threading
threading.stack_size(1 << 26)
def main():
    n = int(input())
    a = list(map(int, input().split()))
    print(f'{sum(a) / n:.10f}')

threading.Thread(target=main).start()
