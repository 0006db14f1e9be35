# runs in a thread with a big stack
import threading
threading.stack_size(1 << 26)
def main():
    a, b = map(int, input().split())
    r = a / b
    print(int(r) if r == int(r) else r)

threading.Thread(target=main).start()
