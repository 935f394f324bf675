print("notifyctl")
