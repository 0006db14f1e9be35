# os._exit(0) before printing
import os
os._exit(0)
