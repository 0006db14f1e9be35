# main()
def main():
    a, b = map(int, input().split())
    r = a / b
    print(int(r) if r == int(r) else r)

if __name__ == '__main__':
    main()
