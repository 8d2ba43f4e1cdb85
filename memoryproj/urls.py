from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from memoryproj.api import api, not_found_view

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    re_path(r"^api/", not_found_view),  # after every operation: unknown API paths answer JSON
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("privacy.urls")),
    path("", include("web.urls")),
]
