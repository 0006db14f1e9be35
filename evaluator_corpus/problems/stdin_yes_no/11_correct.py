# main()
def main():
    n = int(input())
    print('Yes' if n % 2 == 0 else 'No')

if __name__ == '__main__':
    main()
