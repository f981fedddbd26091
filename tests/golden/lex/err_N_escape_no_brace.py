s = '\NBULLET'
