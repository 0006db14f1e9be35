# raises a BaseException subclass
class Stop(BaseException): pass
raise Stop()
