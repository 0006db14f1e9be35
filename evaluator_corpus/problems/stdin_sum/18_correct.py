# main()
def main():
    n = int(input())
    for _ in range(n):
        a, b = map(int, input().split())
        print(a + b)

if __name__ == '__main__':
    main()
