import Hummingbird

print("not yet")
